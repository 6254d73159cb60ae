// fs/writeTextFile: the agent's edits land in the editor. An open document takes the new text as
// one undoable edit (saved afterwards when it had no unsaved changes, so the disk agrees); a file
// that is not open is written through the workspace file system.
import * as vscode from 'vscode';

export async function writeToEditor(fsPath: string, text: string): Promise<null> {
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === fsPath) as vscode.TextDocument | undefined;
  if (!doc) {
    await vscode.workspace.fs.writeFile(vscode.Uri.file(fsPath), new TextEncoder().encode(text));
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
