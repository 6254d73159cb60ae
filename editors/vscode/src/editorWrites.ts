// fs/writeTextFile: the agent's edits land in the editor. An open document takes the new text as
// one undoable edit (saved afterwards when it had no unsaved changes, so the disk agrees); a file
// that is not open is written atomically on disk (a temp file renamed over it, its mode kept), so
// a watcher or a reader never sees it empty or half written.
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import * as vscode from 'vscode';

/** Writes `text` to `fsPath` through a temp file in the same folder and a rename; keeps the mode. */
export async function writeFileAtomic(fsPath: string, text: string): Promise<void> {
  const dir = dirname(fsPath);
  await mkdir(dir, { recursive: true });
  let mode: number | undefined;
  try {
    mode = (await stat(fsPath)).mode & 0o7777;
  } catch {
    mode = undefined; // a new file: the umask's mode
  }
  const tmp = join(dir, `.${basename(fsPath)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, text, { flag: 'wx', ...(mode !== undefined ? { mode } : {}) });
    if (mode !== undefined) await chmod(tmp, mode);
    await rename(tmp, fsPath);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

export async function writeToEditor(fsPath: string, text: string): Promise<null> {
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === fsPath) as vscode.TextDocument | undefined;
  if (!doc) {
    await writeFileAtomic(fsPath, text);
    return null;
  }
  const wasDirty = doc.isDirty;
  const eol = doc.eol === vscode.EndOfLine.CRLF ? '\r\n' : '\n';
  const edit = new vscode.WorkspaceEdit();
  const whole = new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length));
  edit.replace(doc.uri, whole, eol === '\r\n' ? text.replace(/\r?\n/g, '\r\n') : text);
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`the editor refused the edit of ${fsPath}`);
  if (!wasDirty) await doc.save();
  return null;
}
