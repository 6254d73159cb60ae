// The extension's commands: sessions, model, mode, thinking, compaction, abort, and the session
// tree's context actions.
import * as vscode from 'vscode';
import { pickTurn, rewindTo } from './rewind';
import type { ChatViewProvider } from './chatView';
import { CHAT_VIEW_ID } from './chatView';
import { describeError } from './errors';
import type { AgentManager } from './manager';
import {
  THINKING_LEVELS,
  type DraftsResult,
  type MemoryShowResult,
  type ModeListResult,
  type ModelListResult,
  type NavigateResult,
  type SessionInfo,
  type SessionItemsResult,
  type SessionListParams,
  type SessionNewParams,
  type SessionOpenParams,
  type SessionResult,
  type SessionStateResult,
} from './protocol';
import { loginCommand } from './mcpAuth';
import { entryOf, LOAD_MORE_COMMAND, type SessionElement, type SessionTreeProvider } from './sessionTree';

interface Deps {
  manager: AgentManager;
  chat: ChatViewProvider;
  sessionTree: SessionTreeProvider;
}

/** A QuickPick row for a session of session/list. */
/** "5 min ago", "3 h ago", "2 d ago", else the date. */
export function relativeTime(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 7 * 86400) return `${Math.floor(s / 86400)} d ago`;
  return new Date(t).toLocaleDateString();
}

export function sessionPickItem(s: SessionInfo): vscode.QuickPickItem & { session: SessionInfo } {
  const title = s.title || s.name || s.firstMessage || '(empty session)';
  const marks = `${s.current ? '$(circle-filled) ' : ''}${s.fork ? '$(repo-forked) ' : ''}`;
  // Two sessions that began alike differ by their date and their last prompt (issue 33, Missing 7).
  const last = (s as { lastMessage?: string }).lastMessage?.split('\n')[0].slice(0, 100);
  const started = s.created ? new Date(s.created) : undefined;
  const date = started && !Number.isNaN(started.getTime()) ? `started ${started.toISOString().slice(0, 16).replace('T', ' ')}` : '';
  return {
    label: `${marks}${title.split('\n')[0].slice(0, 120)}`,
    description: [relativeTime(s.modified), date, s.fork ? 'fork' : '', s.current ? 'current' : ''].filter(Boolean).join(' · '),
    detail: [last && last !== title.split('\n')[0].slice(0, 100) ? `last: ${last}` : '', `${s.entryCount ?? 0} entries`, s.path].filter(Boolean).join(' · '),
    session: s,
  };
}

export function registerCommands(d: Deps): vscode.Disposable[] {
  const { manager, chat, sessionTree } = d;
  const guard =
    <A extends unknown[]>(fn: (...args: A) => Promise<unknown>) =>
    async (...args: A) => {
      try {
        return await fn(...args);
      } catch (e) {
        void vscode.window.showErrorMessage(`pi-lsp: ${describeError(e)}`);
        return undefined;
      }
    };
  const reg = (id: string, fn: (...args: never[]) => Promise<unknown>) => vscode.commands.registerCommand(id, guard(fn));

  const afterSessionSwitch = async () => {
    await manager.current().resync();
    await sessionTree.refresh();
  };

  return [
    reg('piLsp.focusChat', async () => vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`)),

    reg('piLsp.newSession', async () => {
      const a = manager.current();
      const r = await a.request<SessionResult>('session/new', { cwd: a.cwd } satisfies SessionNewParams);
      await afterSessionSwitch();
      return r;
    }),

    reg('piLsp.resumeSession', async () => {
      const a = manager.current();
      const r = await a.request<SessionItemsResult>('session/list', { cwd: a.cwd, all: false } satisfies SessionListParams);
      const sessions = [...(r.sessions ?? [])].sort((x, y) => (y.modified ?? '').localeCompare(x.modified ?? ''));
      if (!sessions.length) {
        void vscode.window.showInformationMessage('pi-lsp: no sessions for this folder yet.');
        return undefined;
      }
      const pick = await vscode.window.showQuickPick(sessions.map(sessionPickItem), {
        title: 'Resume pi-lsp session',
        placeHolder: 'Pick a session',
        matchOnDescription: true,
        matchOnDetail: true,
      });
      if (!pick) return undefined;
      const opened = await a.request<SessionResult>('session/open', { path: pick.session.path } satisfies SessionOpenParams);
      await afterSessionSwitch();
      return opened;
    }),

    reg('piLsp.renameSession', async () => {
      const a = manager.current();
      const name = await vscode.window.showInputBox({ prompt: 'Session name', value: a.display.state.session?.name ?? '' });
      if (name === undefined) return undefined;
      return a.request('session/setName', { name });
    }),

    reg('piLsp.deleteSession', async () => {
      const a = manager.current();
      const r = await a.request<SessionItemsResult>('session/list', { cwd: a.cwd, all: false, includeEmpty: true } satisfies SessionListParams);
      const others = (r.sessions ?? []).filter((s) => !s.current);
      if (!others.length) {
        void vscode.window.showInformationMessage('pi-lsp: no other session to delete (the current one cannot be).');
        return undefined;
      }
      const pick = await vscode.window.showQuickPick(others.map(sessionPickItem), { title: 'Delete pi-lsp session', placeHolder: 'Pick a session to delete' });
      if (!pick) return undefined;
      const ok = await vscode.window.showWarningMessage(`Delete the session "${pick.label}"? Its file is removed.`, { modal: true }, 'Delete');
      if (ok !== 'Delete') return undefined;
      await vscode.workspace.fs.delete(vscode.Uri.file(pick.session.path));
      return pick.session.path;
    }),

    reg('piLsp.mcpLogin', async () => {
      const a = manager.current();
      return loginCommand((m, p) => a.request(m, p ?? {}));
    }),
    reg('piLsp.selectModel', async () => {
      const a = manager.current();
      const r = await a.request<ModelListResult>('model/list', {});
      const items = (r.models ?? []).map((m) => {
        const id = `${m.provider}/${m.id}`;
        return {
          label: `${id === r.current ? '$(check) ' : ''}${id}`,
          description: m.name && m.name !== m.id ? m.name : '',
          detail: [
            m.contextWindow ? `${Math.round(m.contextWindow / 1000)}k context` : '',
            m.reasoning ? 'reasoning' : '',
            m.authenticated === false ? 'no credentials' : '',
          ]
            .filter(Boolean)
            .join(' · '),
          id,
        };
      });
      const pick = await vscode.window.showQuickPick(items, { title: 'pi-lsp model', placeHolder: r.current });
      if (!pick) return undefined;
      return a.request('model/set', { model: pick.id });
    }),

    reg('piLsp.selectMode', async () => {
      const a = manager.current();
      const r = await a.request<ModeListResult>('mode/list', {});
      const items: Array<vscode.QuickPickItem & { mode?: string; yolo?: boolean }> = (r.modes ?? []).map((m) => ({
        label: `${m.id === r.current ? '$(check) ' : ''}${m.name ?? m.id}`,
        description: m.model ?? '',
        mode: m.id,
      }));
      items.push({ label: '', kind: vscode.QuickPickItemKind.Separator });
      items.push({ label: r.yolo ? '$(shield) Turn yolo off' : '$(warning) Turn yolo on (no approvals)', yolo: !r.yolo });
      const pick = await vscode.window.showQuickPick(items, { title: 'pi-lsp mode', placeHolder: r.current });
      if (!pick) return undefined;
      if (pick.yolo !== undefined) return a.request('mode/set', { mode: r.current, yolo: pick.yolo });
      return a.request('mode/set', { mode: pick.mode, yolo: r.yolo });
    }),

    reg('piLsp.thinkingLevel', async () => {
      const a = manager.current();
      const current = a.display.state.thinkingLevel;
      const pick = await vscode.window.showQuickPick(
        THINKING_LEVELS.map((l) => ({ label: `${l === current ? '$(check) ' : ''}${l}`, level: l })),
        { title: 'pi-lsp thinking level' },
      );
      if (!pick) return undefined;
      return a.request('thinking/set', { level: pick.level });
    }),

    reg('piLsp.compact', async () => {
      const a = manager.current();
      const instructions = await vscode.window.showInputBox({
        title: 'Compact pi-lsp context',
        prompt: 'Optional instructions for the summary (Enter for none)',
      });
      if (instructions === undefined) return undefined;
      return vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'pi-lsp: compacting context…' },
        () => a.request('compaction/run', instructions ? { customInstructions: instructions } : {}),
      );
    }),

    reg('piLsp.showMemory', async () => {
      const a = manager.current();
      const r = await a.request<MemoryShowResult>('memory/show', {});
      const body =
        r?.settings?.mode !== 'observational'
          ? '# pi-lsp memory\n\nThis session uses compaction. Run `memory/configure` with `{"mode": "observational"}` to switch.\n'
          : `# pi-lsp observations\n\n${r.observations || '(nothing observed yet)'}\n\n## Current task\n\n${r.currentTask || '—'}\n\n## Suggested continuation\n\n${r.suggestedResponse || '—'}\n`;
      const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: body });
      await vscode.window.showTextDocument(doc, { preview: true });
      return undefined;
    }),

    reg('piLsp.abort', async () => {
      const a = manager.current();
      a.declinePending();
      if (a.status !== 'ready') return undefined;
      const r = await a.request<DraftsResult>('agent/abort', {});
      // The queued messages the abort dropped go back to the input.
      if (r?.returnedDrafts?.length) chat.setInput(r.returnedDrafts.join('\n\n'));
      return r;
    }),

    reg('piLsp.addSelection', async () => {
      const ed = vscode.window.activeTextEditor;
      if (!ed || ed.document.uri.scheme !== 'file') return undefined;
      const sel = ed.selection;
      const whole = sel.isEmpty;
      const text = whole ? ed.document.getText() : ed.document.getText(sel);
      chat.addContext({
        type: whole ? 'file' : 'selection',
        path: ed.document.uri.fsPath,
        ...(whole ? { text } : { range: { startLine: sel.start.line + 1, endLine: sel.end.line + 1 - (sel.end.character === 0 && sel.end.line > sel.start.line ? 1 : 0) }, text }),
      } as never);
      return vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
    }),

    reg('piLsp.restartServer', async () => manager.current().restart()),

    reg('piLsp.refreshTree', async () => sessionTree.refresh()),
    reg('piLsp.tree.showAll', async () => sessionTree.setShowAll(true)),
    reg('piLsp.tree.hideBookkeeping', async () => sessionTree.setShowAll(false)),

    reg(LOAD_MORE_COMMAND, async (e: SessionElement) => sessionTree.loadMore(e)),

    reg('piLsp.tree.navigate', async (e: SessionElement) => navigate(e, false)),
    reg('piLsp.tree.navigateSummarize', async (e: SessionElement) => navigate(e, true)),

    reg('piLsp.tree.fork', async (e: SessionElement) => {
      const n = entryOf(e);
      if (!n) return undefined;
      const r = await manager.current().request<SessionResult>('session/fork', {
        entryId: n.id,
        at: n.role !== 'user',
      });
      await afterSessionSwitch();
      if (r.editorText) chat.setInput(r.editorText);
      return r;
    }),

    // Opens a subagent's session: the one a nested card names, or one picked among the current
    // session's children (session/list with includeSubagents, by parentSession).
    reg('piLsp.openSubagentSession', async (path?: string) => {
      const a = manager.current();
      let target = typeof path === 'string' ? path : '';
      if (!target) {
        const st = await a.request<SessionStateResult>('session/state', {});
        const r = await a.request<SessionItemsResult>('session/list', { cwd: a.cwd, includeSubagents: true } satisfies SessionListParams);
        const kids = (r.sessions ?? []).filter((s) => s.parentSession && s.parentSession === st.path);
        if (!kids.length) {
          void vscode.window.showInformationMessage('pi-lsp: this session started no subagents.');
          return undefined;
        }
        const pick = await vscode.window.showQuickPick(kids.map(sessionPickItem), { title: 'Open subagent session', matchOnDetail: true });
        if (!pick) return undefined;
        target = pick.session.path;
      }
      const opened = await a.request<SessionResult>('session/open', { path: target } satisfies SessionOpenParams);
      await afterSessionSwitch();
      return opened;
    }),

    reg('piLsp.tree.rewind', async (e: SessionElement) => {
      const n = entryOf(e);
      return n ? rewind(n.id) : undefined;
    }),
    reg('piLsp.rewind', async (entryId?: string) => {
      const id = typeof entryId === 'string' ? entryId : await pickTurn(manager.current());
      return id ? rewind(id) : undefined;
    }),

    reg('piLsp.tree.label', async (e: SessionElement) => {
      const n = entryOf(e);
      if (!n) return undefined;
      const label = await vscode.window.showInputBox({
        title: 'Label entry',
        prompt: 'Label for this entry (empty clears it)',
        value: n.label ?? '',
      });
      if (label === undefined) return undefined;
      await manager.current().request('session/label', { entryId: n.id, label });
      return sessionTree.refresh();
    }),
  ];

  async function rewind(entryId: string): Promise<unknown> {
    const r = await rewindTo(manager.current(), entryId);
    if (r && r.choice !== 'code') await afterSessionSwitch();
    if (r?.editorText) chat.setInput(r.editorText);
    return r;
  }

  async function navigate(e: SessionElement, summarize: boolean): Promise<unknown> {
    const n = entryOf(e);
    if (!n) return undefined;
    let customInstructions = '';
    if (summarize) {
      const v = await vscode.window.showInputBox({
        title: 'Summarize the branch you leave',
        prompt: 'Optional instructions for the summary (Enter for none)',
      });
      if (v === undefined) return undefined;
      customInstructions = v;
    }
    const r = await manager.current().request<NavigateResult>('session/navigate', {
      targetId: n.id,
      summarize,
      customInstructions,
      label: '',
    });
    await afterSessionSwitch();
    if (r.editorText) chat.setInput(r.editorText);
    return r;
  }
}
