// MCP elicitation under the stub `vscode` (src/mcpAuth.ts): ui/elicit asks each field (a pick for
// enums and booleans, an input box otherwise), leaves out what the user left empty so pi-lsp
// fills in the default, declines and cancels; checkField refuses what does not fit.
import { stub } from '../stub/register';
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { checkField, elicit } from '../../src/mcpAuth';

const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) } as never;
const params = {
  server: 'github',
  message: 'Which repository?',
  requestedSchema: {
    type: 'object',
    required: ['repo'],
    properties: { repo: { type: 'string' }, private: { type: 'boolean' }, count: { type: 'integer', default: 3 } },
  },
};

describe('ui/elicit', () => {
  beforeEach(() => stub.control.reset());

  it('accepts with the typed values; an empty field is left to its default', async () => {
    stub.control.notification = () => 'Answer';
    stub.control.quickPick = () => 'true';
    const inputs = ['pi-lsp/pi-lsp', ''];
    stub.control.inputBox = () => inputs.shift();
    const r = await elicit(params as never, token);
    assert.deepEqual(r, { action: 'accept', content: { repo: 'pi-lsp/pi-lsp', private: true } });
  });

  it('declines, and cancels when a field is dismissed', async () => {
    stub.control.notification = () => 'Decline';
    assert.deepEqual(await elicit(params as never, token), { action: 'decline' });
    stub.control.notification = () => 'Answer';
    stub.control.inputBox = () => undefined;
    assert.deepEqual(await elicit(params as never, token), { action: 'cancel' });
  });

  it('checkField', () => {
    assert.equal(checkField({ type: 'string' }, '', true), 'required');
    assert.equal(checkField({ type: 'string', default: 'x' }, '', true), undefined);
    assert.equal(checkField({ type: 'number' }, 'abc', false), 'a number');
    assert.equal(checkField({ type: 'integer' }, '1.5', false), 'a whole number');
    assert.equal(checkField({ type: 'integer', maximum: 2 }, '3', false), 'at most 2');
  });
});
