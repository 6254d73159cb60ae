// Opening a path the transcript names (a tool header, a relative markdown link, `file:line`) and
// inserting a code block at the cursor.
import * as path from 'path';
import * as vscode from 'vscode';

/** Opens cwd-relative or absolute p, at 1-based line when given. */
export async function openFileAt(cwd: string, p: string, line?: number): Promise<void> {
  const abs = path.isAbsolute(p) ? p : path.join(cwd, p);
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(abs));
  const ed = await vscode.window.showTextDocument(doc, { preview: true });
  if (line && line > 0) {
    const pos = new vscode.Position(Math.min(line - 1, doc.lineCount - 1), 0);
    ed.selection = new vscode.Selection(pos, pos);
    ed.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenter);
  }
}

/** Inserts text at the cursor of the last active text editor. */
export async function insertAtCursor(text: string): Promise<void> {
  const ed = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
  if (!ed) return void vscode.window.showWarningMessage('pi-lsp: no editor to insert into.');
  await ed.edit((b) => b.replace(ed.selection, text));
}
