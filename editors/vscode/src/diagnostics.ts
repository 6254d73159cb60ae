// editor/diagnostics and editor/lsp: pi-lsp asks the language servers already running in VS Code
// for the problems of the files the agent changed, and for definitions, references, hovers,
// symbols and rename previews (docs/protocol.md).
import * as vscode from 'vscode';
import type { EditorDiagnosticsParams, EditorDiagnosticsResult, EditorLSPParams, EditorLSPResult, LSPDiagnostic, LSPLocation } from './protocol';

/** Opens each file (so its language server analyses it), waits until onDidChangeDiagnostics has
 * been quiet for settleMs on those files (or settleMs + 1 s have passed), then reads them. */
export async function editorDiagnostics(p: EditorDiagnosticsParams, token?: vscode.CancellationToken): Promise<EditorDiagnosticsResult> {
  const uris = (p.paths ?? []).map((f) => vscode.Uri.file(f));
  const settle = Math.max(0, Math.min(p.settleMs ?? 1500, 60000));
  const watched = new Set(uris.map((u) => u.toString()));
  let last = Date.now();
  const sub = vscode.languages.onDidChangeDiagnostics((e: { uris: readonly vscode.Uri[] }) => {
    if (e.uris.some((u) => watched.has(u.toString()))) last = Date.now();
  });
  try {
    for (const u of uris) {
      try {
        await vscode.workspace.openTextDocument(u);
      } catch {
        // a deleted file: nothing to report
      }
    }
    if (settle > 0) {
      const deadline = Date.now() + settle + 1000;
      while (Date.now() < deadline && Date.now() - last < settle && !token?.isCancellationRequested) {
        await new Promise((r) => setTimeout(r, Math.min(50, settle)));
      }
    }
  } finally {
    sub.dispose();
  }
  return {
    files: uris.map((u) => ({ path: u.fsPath, diagnostics: vscode.languages.getDiagnostics(u).map(toLsp) })),
  };
}

function toLsp(d: vscode.Diagnostic): LSPDiagnostic {
  const out: LSPDiagnostic = {
    range: { start: { line: d.range.start.line, character: d.range.start.character }, end: { line: d.range.end.line, character: d.range.end.character } },
    severity: (d.severity ?? 0) + 1, // VS Code: Error 0 … Hint 3; LSP: 1 … 4
    message: d.message,
  };
  if (d.source) out.source = d.source;
  const code = typeof d.code === 'object' && d.code !== null ? d.code.value : d.code;
  if (code !== undefined) out.code = code as unknown as LSPDiagnostic['code'];
  return out;
}

type Loc = { uri: vscode.Uri; range: vscode.Range } | { targetUri: vscode.Uri; targetSelectionRange?: vscode.Range; targetRange: vscode.Range };

/** editor/lsp through VS Code's built-in provider commands. */
export async function editorLsp(p: EditorLSPParams): Promise<EditorLSPResult> {
  const uri = vscode.Uri.file(p.path);
  const pos = new vscode.Position(Math.max(0, p.line - 1), Math.max(0, p.column - 1));
  const run = <T>(cmd: string, ...args: unknown[]) => vscode.commands.executeCommand(cmd, ...args) as Thenable<T>;
  await vscode.workspace.openTextDocument(uri);
  const locs: Array<{ uri: vscode.Uri; range: vscode.Range; text?: string }> = [];
  let hover: string | undefined;
  const addLoc = (l: Loc) => {
    if ('targetUri' in l) locs.push({ uri: l.targetUri, range: l.targetSelectionRange ?? l.targetRange });
    else if (l?.uri) locs.push({ uri: l.uri, range: l.range });
  };
  switch (p.op) {
    case 'definition': {
      const r = await run<Loc | Loc[] | undefined>('vscode.executeDefinitionProvider', uri, pos);
      for (const l of Array.isArray(r) ? r : r ? [r] : []) addLoc(l);
      break;
    }
    case 'references':
      for (const l of (await run<Loc[] | undefined>('vscode.executeReferenceProvider', uri, pos)) ?? []) addLoc(l);
      break;
    case 'hover': {
      const hs = (await run<vscode.Hover[] | undefined>('vscode.executeHoverProvider', uri, pos)) ?? [];
      hover = hs
        .flatMap((h) => h.contents)
        .map((c) => (typeof c === 'string' ? c : 'value' in c ? (c as { value: string }).value : ''))
        .filter(Boolean)
        .join('\n\n');
      break;
    }
    case 'symbols': {
      type Sym = { name: string; kind: number; location?: { uri: vscode.Uri; range: vscode.Range }; selectionRange?: vscode.Range; children?: Sym[] };
      const syms = p.query
        ? ((await run<Sym[] | undefined>('vscode.executeWorkspaceSymbolProvider', p.query)) ?? [])
        : ((await run<Sym[] | undefined>('vscode.executeDocumentSymbolProvider', uri)) ?? []);
      const walk = (s: Sym, parent: string) => {
        const name = parent ? `${parent}.${s.name}` : s.name;
        if (s.location) locs.push({ uri: s.location.uri, range: s.location.range, text: name });
        else if (s.selectionRange) locs.push({ uri, range: s.selectionRange, text: name });
        for (const c of s.children ?? []) walk(c, name);
      };
      syms.forEach((s) => walk(s, ''));
      break;
    }
    case 'rename_preview': {
      const edit = await run<vscode.WorkspaceEdit | undefined>('vscode.executeDocumentRenameProvider', uri, pos, p.query ?? '');
      for (const [u, edits] of edit?.entries() ?? []) for (const e of edits) locs.push({ uri: u, range: e.range, text: `→ ${e.newText}` });
      break;
    }
    default:
      throw new Error(`unknown op ${p.op}`);
  }
  const locations: LSPLocation[] = [];
  for (const l of locs) {
    let text = l.text;
    if (text === undefined) {
      try {
        const doc = await vscode.workspace.openTextDocument(l.uri);
        text = doc.lineAt(l.range.start.line).text.trim().slice(0, 160);
      } catch {
        text = '';
      }
    }
    locations.push({
      path: l.uri.fsPath,
      line: l.range.start.line + 1,
      column: l.range.start.character + 1,
      endLine: l.range.end.line + 1,
      endColumn: l.range.end.character + 1,
      text,
    });
  }
  return hover ? { locations, hover } : { locations };
}
