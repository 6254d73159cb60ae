// Rewind with files: "Rewind to here" on a user message of the chat and on every node of the
// session tree. Shows what a restore would change (session/rewindPreview: each file with its
// diff) and offers "Restore code and conversation", "Conversation only" or "Code only"
// (session/restoreFiles: the leaf stays). Open editors of unmodified files reload from disk by
// themselves; the answer's `paths` say which files changed.
import * as vscode from 'vscode';

interface Requester {
  request<T>(method: string, params: unknown): Promise<T>;
}

interface FileChange {
  path: string;
  change: 'modified' | 'added' | 'deleted';
  diff: string;
}

interface FilesRestored {
  restored: number;
  deleted: number;
  paths?: string[];
  failed?: Array<{ path: string; error: string }>;
}

export type RewindChoice = 'both' | 'chat' | 'code';

interface Item extends vscode.QuickPickItem {
  choice?: RewindChoice;
  file?: FileChange;
}

/** What a rewind did: undefined when cancelled. */
export interface RewindOutcome {
  choice: RewindChoice;
  files?: FilesRestored;
  editorText?: string;
}

const icon: Record<FileChange['change'], string> = { modified: '$(diff-modified)', added: '$(diff-added)', deleted: '$(diff-removed)' };

/** Previews and rewinds to `entryId`. */
export async function rewindTo(a: Requester, entryId: string): Promise<RewindOutcome | undefined> {
  const preview = await a.request<{ files: FileChange[] }>('session/rewindPreview', { targetId: entryId });
  const files = preview.files ?? [];
  const items: Item[] = [
    { label: '$(history) Restore code and conversation', choice: 'both' },
    { label: '$(comment-discussion) Conversation only', choice: 'chat' },
    { label: '$(file-code) Code only', description: 'the conversation stays', choice: 'code' },
    ...files.map((f) => ({
      label: `${icon[f.change]} ${f.path}`,
      description: f.change,
      detail: f.diff ? f.diff.split('\n').filter((l) => /^[+-][^+-]/.test(l)).slice(0, 6).join('  ⏎  ') : f.change === 'deleted' ? '' : '(binary)',
      file: f,
    })),
  ];
  const title = files.length ? `Rewind: ${files.length} file(s) would change` : 'Rewind: no file would change';
  const pick = await vscode.window.showQuickPick(items, { title, placeHolder: 'Pick what to restore (the files are listed below)', matchOnDetail: true });
  if (!pick?.choice) return undefined;
  if (pick.choice === 'code') {
    const r = await a.request<{ files: FilesRestored }>('session/restoreFiles', { targetId: entryId });
    report(r.files);
    return { choice: 'code', files: r.files };
  }
  const r = await a.request<{ leafId: string; editorText?: string; files?: FilesRestored }>('session/navigate', {
    targetId: entryId,
    files: pick.choice === 'both' ? 'restore' : 'keep',
  });
  if (r.files) report(r.files);
  return { choice: pick.choice, files: r.files, editorText: r.editorText };
}

function report(f: FilesRestored): void {
  const failed = f.failed ?? [];
  const msg = `pi-lsp: ${f.restored} file(s) restored, ${f.deleted} deleted${failed.length ? `; could not write ${failed.map((x) => x.path).join(', ')}` : ''}.`;
  void (failed.length ? vscode.window.showWarningMessage(msg) : vscode.window.showInformationMessage(msg));
}

/** The user messages of the current branch, for the palette's "Rewind…". */
export async function pickTurn(a: Requester): Promise<string | undefined> {
  const r = await a.request<{ entries: Array<{ id: string; type: string; message?: { role: string; content: unknown } }> }>('session/entries', { limit: 1000 });
  const turns = (r.entries ?? [])
    .filter((e) => e.type === 'message' && e.message?.role === 'user')
    .map((e) => ({ label: textOf(e.message?.content).split('\n')[0].slice(0, 120), id: e.id }));
  if (!turns.length) {
    void vscode.window.showInformationMessage('pi-lsp: no user message on this branch to rewind to.');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(turns.reverse(), { title: 'Rewind to before…' });
  return pick?.id;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .filter((b): b is { type: string; text: string } => typeof b === 'object' && b !== null && (b as { type?: string }).type === 'text')
      .map((b) => b.text)
      .join(' ');
  }
  return '';
}
