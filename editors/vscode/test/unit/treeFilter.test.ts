import '../stub/register';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isShown } from '../../src/treeFilter';
import { e } from './flatServer';

describe('isShown', () => {
  const cases: Array<[string, boolean]> = [
    ['message', true],
    ['compaction', true],
    ['branch_summary', true],
    ['custom_message', true],
    ['corrupt', true],
    ['some_future_type', true],
    ['model_change', false],
    ['thinking_level_change', false],
    ['label', false],
    ['session_info', false],
    ['custom', false],
    ['leaf', false],
  ];
  for (const [type, shown] of cases) {
    it(`${type} is ${shown ? 'shown' : 'hidden'} by default and shown with show-all`, () => {
      assert.equal(isShown(e('x', type), false), shown);
      assert.equal(isShown(e('x', type), true), true);
    });
  }
});
