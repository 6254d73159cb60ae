import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApprovalRequest } from '../../src/protocol';
import { APPROVAL_BUTTONS, approvalButtons, approvalReply, grantedDir, outsideWarning, planReply, questionReply } from '../../src/replies';

describe('approvalReply', () => {
  const cases: Array<[string | undefined, string]> = [
    ['approve', 'approve'],
    ['decline', 'decline'],
    ['alwaysAllowTool', 'alwaysAllowTool'],
    ['alwaysAllowCategory', 'alwaysAllowCategory'],
    ['Approve', 'approve'],
    ['Decline', 'decline'],
    ['Always this tool', 'alwaysAllowTool'],
    ['Always this category', 'alwaysAllowCategory'],
    [undefined, 'decline'],
    ['Open Chat', 'decline'],
    ['APPROVE', 'decline'],
    ['', 'decline'],
  ];
  for (const [clicked, decision] of cases) {
    it(`${JSON.stringify(clicked)} -> ${decision}`, () => assert.deepEqual(approvalReply(clicked), { decision }));
  }
  it('has the four buttons of the issue, in order', () => {
    assert.deepEqual(
      APPROVAL_BUTTONS.map((b) => b.label),
      ['Approve', 'Decline', 'Always this tool', 'Always this category'],
    );
  });
});

describe('questionReply', () => {
  const single = { id: 'q1', question: 'Which database?', options: ['sqlite', 'postgres'], selectionMode: 'single' };
  const multi = { ...single, selectionMode: 'multi' };
  const free = { id: 'q2', question: 'Name?' };
  const cases = [
    { name: 'single choice', req: single, ans: { selected: ['postgres'] }, want: { answer: 'postgres' } },
    { name: 'single ignores extra picks', req: single, ans: { selected: ['sqlite', 'postgres'] }, want: { answer: 'sqlite' } },
    { name: 'single with an unknown choice cancels', req: single, ans: { selected: ['mysql'] }, want: { cancelled: true } },
    { name: 'multi', req: multi, ans: { selected: ['sqlite', 'postgres'] }, want: { answers: ['sqlite', 'postgres'] } },
    { name: 'multi drops unknown', req: multi, ans: { selected: ['x', 'postgres'] }, want: { answers: ['postgres'] } },
    { name: 'multi with nothing cancels', req: multi, ans: { selected: [] }, want: { cancelled: true } },
    { name: 'free text', req: free, ans: { text: '  pi  ' }, want: { answer: 'pi' } },
    { name: 'empty free text cancels', req: free, ans: { text: '   ' }, want: { cancelled: true } },
    { name: 'cancel', req: single, ans: { cancelled: true }, want: { cancelled: true } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(questionReply(c.req, c.ans), c.want));
});

describe('planReply', () => {
  it('approve', () => assert.deepEqual(planReply(true), { approved: true }));
  it('reject with feedback', () => assert.deepEqual(planReply(false, ' also handle eviction '), { approved: false, feedback: 'also handle eviction' }));
  it('reject without feedback', () => assert.deepEqual(planReply(false, ''), { approved: false }));
});

describe('approvals outside the workspace', () => {
  const req = (r: Partial<ApprovalRequest>): ApprovalRequest => ({ toolCallId: '', toolName: '', category: 'read', args: {}, display: '', outsideWorkspace: false, ...r });
  const outside = { toolCallId: 'r1', toolName: 'read', category: 'read', args: {}, display: 'read x.go', outsideWorkspace: true, resolvedPath: '/home/u/src/lib/x.go', access: 'read' as const };
  it('warns with the resolved path', () => {
    assert.equal(outsideWarning(outside), 'OUTSIDE THE WORKSPACE: reads /home/u/src/lib/x.go');
    assert.equal(outsideWarning(req({ toolCallId: 'w', toolName: 'write' })), '');
  });
  it('offers a per-path grant of the directory', () => {
    assert.deepEqual(
      approvalButtons(outside).map((b) => [b.choice, b.label]),
      [['approve', 'Approve'], ['decline', 'Decline'], ['alwaysAllowPath', 'Always allow reading /home/u/src/lib']],
    );
    assert.equal(grantedDir({ ...outside, toolName: 'ls', resolvedPath: '/etc' }), '/etc');
    assert.deepEqual(approvalButtons(req({ toolCallId: 'w', toolName: 'write' })), APPROVAL_BUTTONS);
  });
  it('maps the grant button to alwaysAllowPath', () => {
    assert.deepEqual(approvalReply('Always allow writing /tmp/x'), { decision: 'alwaysAllowPath' });
    assert.deepEqual(approvalReply('alwaysAllowPath'), { decision: 'alwaysAllowPath' });
  });
});
