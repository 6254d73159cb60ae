// The Jobs view against the real pi-lsp binary: a background job started by the fake model shows
// in the view with its live output and in the status bar; kill and open-full-output work.
import { stub } from '../stub/register';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import type { PiLspApi } from '../../src/extension';
import type { JobNode } from '../../src/jobsTree';
import { FakeLlm, waitFor, Workspace } from './helpers';
import { useExtensionWithFakeModel } from './start';

// JobsTreeProvider answers synchronously (waitFor polls synchronous conditions).
type TreeProvider<T> = { getChildren(e?: T): T[]; getTreeItem(e: T): { label: string; description?: string; contextValue?: string } };

describe('Jobs view against pi-lsp', () => {
  let ws: Workspace;
  let llm: FakeLlm;
  let api: PiLspApi;
  useExtensionWithFakeModel({ prefix: 'jobs' }, (s) => ({ ws, llm, api } = s));

  before(async () => {
    await api.manager.current().request('permissions/set', { yolo: true });
  });

  it('shows a job with live output, kills it, opens its full output', async () => {
    const command = 'echo alpha; while [ ! -e gate ]; do sleep 0.05; done; echo beta; sleep 300';
    await llm.add({ toolCalls: [{ id: 'call_bg', name: 'bash', arguments: { command, background: true } }] }, { text: 'Started.' });
    await api.manager.current().request('agent/prompt', { text: 'start the watcher' });
    const tree = stub.control.treeProviders.get('piLsp.jobs') as TreeProvider<JobNode>;
    assert.ok(tree, 'the Jobs view is registered');
    const top = await waitFor('the running job in the view', () => {
      const nodes = tree.getChildren();
      return nodes.length === 1 && tree.getTreeItem(nodes[0]).description === 'running' ? nodes : undefined;
    });
    assert.equal(tree.getTreeItem(top[0]).label, `job-1: ${command}`);
    assert.equal(tree.getTreeItem(top[0]).contextValue, 'piLsp.job.running');
    await waitFor('the status bar to count the job', () => /1 job/.test(stub.control.statusBarText));
    const lines = () => tree.getChildren(top[0]).map((n) => tree.getTreeItem(n).label);
    await waitFor('alpha in the view', () => lines().includes('alpha'));
    fs.writeFileSync(path.join(ws.folder, 'gate'), '');
    await waitFor('beta in the view (live output)', () => lines().join('\n') === 'alpha\nbeta');

    await stub.commands.executeCommand('piLsp.openJobOutput', top[0]);
    const opened = stub.control.executed.find((e) => e.id === 'vscode.open');
    const file = (opened?.args[0] as { fsPath?: string } | undefined)?.fsPath ?? '';
    assert.match(file, /pi-job-job-1-.*\.log$/);
    assert.equal(fs.readFileSync(file, 'utf8'), 'alpha\nbeta\n');

    await stub.commands.executeCommand('piLsp.killJob', top[0]);
    await waitFor('the job killed in the view', () => {
      const nodes = tree.getChildren();
      return nodes.length === 1 && /^killed/.test(tree.getTreeItem(nodes[0]).description ?? '');
    });
    await waitFor('the status bar without jobs', () => !/job/.test(stub.control.statusBarText));
  });
});
