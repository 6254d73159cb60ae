import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { declineReply, reviewReply } from '../../src/replies';
import { mentionAt } from '../../src/webview/completions';
import { fileRef } from '../../src/webview/markdown';

describe('review replies', () => {
  it('sends content only when the accepted text differs from the proposal', () => {
    assert.deepEqual(reviewReply('a\nb\n', 'a\nb\n'), { decision: 'approve' });
    assert.deepEqual(reviewReply('a\nb\n', 'a\r\nb\r\n'), { decision: 'approve' }, 'CRLF of the editor is not a change');
    assert.deepEqual(reviewReply('a\nB\n', 'a\nb\n'), { decision: 'approve', content: 'a\nb\n' });
  });
  it('declines with a trimmed reason, or none', () => {
    assert.deepEqual(declineReply('  keep it  '), { decision: 'decline', feedback: 'keep it' });
    assert.deepEqual(declineReply(''), { decision: 'decline' });
    assert.deepEqual(declineReply(undefined), { decision: 'decline' });
  });
});

describe('@ mentions and file references', () => {
  it('finds the @query at the caret', () => {
    assert.deepEqual(mentionAt('explain @cal', 12), { start: 8, query: 'cal' });
    assert.deepEqual(mentionAt('@', 1), { start: 0, query: '' });
    assert.equal(mentionAt('mail a@b.c', 10), undefined);
    assert.equal(mentionAt('done @x ', 8), undefined);
  });
  it('tells file references from other text', () => {
    assert.deepEqual(fileRef('calc.go:12'), { path: 'calc.go', line: 12 });
    assert.deepEqual(fileRef('src/a.ts#L3'), { path: 'src/a.ts', line: 3 });
    assert.deepEqual(fileRef('docs/x.md'), { path: 'docs/x.md', line: undefined });
    assert.equal(fileRef('e.g'), undefined);
    assert.equal(fileRef('foo.bar'), undefined);
    assert.equal(fileRef('https://x.example/a.go'), undefined);
  });
});
