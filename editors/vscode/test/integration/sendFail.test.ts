// Issue 33, bug 3: a prompt sent while pi-lsp cannot start (its path is wrong) is not lost: the
// extension hands the text and its context back to the input, and the error offers Open
// Settings, Select Model and Retry. The extension runs under the stub `vscode`.
import { stub } from '../stub/register';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ToWebview } from '../../src/messages';
import { FakeWebviewView, makeWorkspace, waitFor, type Workspace } from './helpers';
import { openWindow, type Window } from './start';

describe('a prompt whose send fails', () => {
  let ws: Workspace;
  let win: Window | undefined;
  let view: FakeWebviewView;

  before(() => {
    ws = makeWorkspace('sendfail');
    stub.control.reset();
    stub.control.folders = [{ uri: stub.Uri.file(ws.folder), name: 'project', index: 0 }];
    stub.control.config = { 'piLsp.path': path.join(ws.dir, 'no-such-pi-lsp'), 'piLsp.sessionsDir': ws.sessions };
    win = openWindow();
    view = win.view;
  });

  after(async () => {
    await win?.close();
    ws?.cleanup();
  });

  it('gives the text back and offers Open Settings, Select Model and Retry', async () => {
    assert.equal(fs.existsSync(path.join(ws.dir, 'no-such-pi-lsp')), false);
    let retried = false;
    stub.control.notification = (m) => {
      if (!m.includes('the prompt was not sent') || retried) return undefined;
      retried = true;
      return 'Retry';
    };
    const context = [{ type: 'file' as const, path: 'README.md' }];
    view.receive({ type: 'send', text: 'explain the project', behavior: 'steer', context });
    const failed = (await waitFor('the prompt handed back', () => view.posted.find((m) => m.type === 'sendFailed'), 30000)) as Extract<ToWebview, { type: 'sendFailed' }>;
    assert.equal(failed.text, 'explain the project');
    assert.deepEqual(failed.context, context);
    assert.ok(failed.message.length > 0, 'with the reason');
    const note = stub.control.messages.find((m) => m.level === 'error' && m.message.includes('the prompt was not sent'));
    assert.ok(note, `an error notification: ${JSON.stringify(stub.control.messages)}`);
    assert.deepEqual(note.items, ['Open Settings', 'Select Model', 'Retry']);
    // Retry asks the page to send what its input holds again.
    await waitFor('the retry', () => view.posted.find((m) => m.type === 'resend'));
  });
});
