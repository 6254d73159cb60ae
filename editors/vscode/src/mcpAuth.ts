// MCP logins and elicitation (docs/mcp.md): window/showDocument opens a login page in the browser,
// ui/elicit asks a server's form field by field, and "Log in to an MCP Server" runs mcp/login on a
// server that shows needs-login.
import * as vscode from 'vscode';
import type { ElicitParams, ElicitResult, FileMatch, MCPListResult, MCPLoginResult, MCPResourcesResult } from './protocol';

/** window/showDocument: external URIs (MCP login pages) open in the browser. */
export async function showDocument(p: { uri: string; external?: boolean }): Promise<{ success: boolean }> {
  const uri = vscode.Uri.parse(p.uri);
  if (p.external || uri.scheme === 'http' || uri.scheme === 'https') {
    return { success: await vscode.env.openExternal(uri) };
  }
  await vscode.window.showTextDocument(uri);
  return { success: true };
}

interface Field {
  type?: string;
  title?: string;
  description?: string;
  enum?: string[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
}

/** Checks one typed answer; undefined when it fits the field. Pure (tested). */
export function checkField(f: Field, text: string, required: boolean): string | undefined {
  if (text === '') return required && f.default === undefined ? 'required' : undefined;
  if (f.type === 'number' || f.type === 'integer') {
    const n = Number(text);
    if (Number.isNaN(n)) return 'a number';
    if (f.type === 'integer' && !Number.isInteger(n)) return 'a whole number';
    if (f.minimum !== undefined && n < f.minimum) return `at least ${f.minimum}`;
    if (f.maximum !== undefined && n > f.maximum) return `at most ${f.maximum}`;
  }
  return undefined;
}

/** ui/elicit: the form's message, then each field (a pick for enums and booleans). Escape cancels. */
export async function elicit(p: ElicitParams, token: vscode.CancellationToken): Promise<ElicitResult> {
  const open = await vscode.window.showInformationMessage(
    `MCP server "${p.server}" asks: ${p.message}`,
    { modal: false },
    'Answer',
    'Decline',
  );
  if (open === 'Decline') return { action: 'decline' };
  if (open !== 'Answer' || token.isCancellationRequested) return { action: 'cancel' };
  const schema = (p.requestedSchema ?? {}) as { properties?: Record<string, Field>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const content: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(schema.properties ?? {})) {
    const title = `${p.server}: ${f.title ?? name}${required.has(name) ? '' : ' (optional)'}`;
    if (f.enum || f.type === 'boolean') {
      const options = f.enum ?? ['true', 'false'];
      const pick = await vscode.window.showQuickPick(options, { title, placeHolder: f.description ?? String(f.default ?? '') }, token);
      if (pick === undefined) return { action: 'cancel' };
      content[name] = f.type === 'boolean' ? pick === 'true' : pick;
      continue;
    }
    const text = await vscode.window.showInputBox(
      { title, prompt: f.description, placeHolder: f.default !== undefined ? String(f.default) : '', validateInput: (v) => checkField(f, v, required.has(name)) },
      token,
    );
    if (text === undefined) return { action: 'cancel' };
    if (text === '') continue; // left out: pi-lsp fills in the default
    content[name] = f.type === 'number' || f.type === 'integer' ? Number(text) : text;
  }
  return { action: 'accept', content };
}

/** "Log in to an MCP Server": the http and sse servers that need a login (or failed one). */
export async function loginCommand(request: <R>(method: string, params?: unknown) => Promise<R>): Promise<unknown> {
  const l = await request<MCPListResult>('mcp/list', {});
  const items = (l.servers ?? [])
    .filter((s) => s.type === 'http' || s.type === 'sse')
    .map((s) => ({ label: s.name, description: s.state, detail: s.error || s.target }));
  if (items.length === 0) {
    void vscode.window.showInformationMessage('pi-lsp: no http or sse MCP server is configured');
    return undefined;
  }
  items.sort((a, b) => Number(b.description === 'needs-login') - Number(a.description === 'needs-login'));
  const pick = await vscode.window.showQuickPick(items, { title: 'Log in to an MCP server' });
  if (!pick) return undefined;
  const r = await request<MCPLoginResult>('mcp/login', { server: pick.label });
  if (r.server.state === 'ready') void vscode.window.showInformationMessage(`pi-lsp: logged in to ${pick.label}`);
  else void vscode.window.showErrorMessage(`pi-lsp: ${pick.label}: ${r.server.error ?? r.server.state}`);
  return r;
}

/** The MCP resources matching an @ query, as completion rows `server:uri` (no abs: not a file). */
export async function resourceMatches(a: { request<R>(method: string, params?: unknown): Promise<R> }, query: string): Promise<FileMatch[]> {
  let r: MCPResourcesResult;
  try {
    r = await a.request<MCPResourcesResult>('mcp/resources', {});
  } catch {
    return [];
  }
  const out: FileMatch[] = [];
  for (const s of r.servers ?? []) {
    for (const res of s.resources ?? []) {
      const path = `${s.server}:${res.uri}`;
      if (path.includes(query)) out.push({ path, abs: '', score: 0, positions: [] });
    }
  }
  return out.slice(0, 20);
}
