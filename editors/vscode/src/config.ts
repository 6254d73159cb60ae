// Reading the piLsp.* settings into what is needed to start a server. No `vscode` import: the
// settings object is passed in, so this is unit-tested directly.
import * as os from 'os';
import * as path from 'path';

export interface PiSettings {
  path?: string;
  model?: string;
  env?: Record<string, unknown>;
  sessionsDir?: string;
}

export interface LaunchConfig {
  command: string;
  env: NodeJS.ProcessEnv;
  model?: string;
}

/** Expands `~` and `${workspaceFolder}`; a relative path with a slash is taken from the folder. */
export function expandPath(p: string, folder: string | undefined): string {
  let s = p.trim();
  if (folder) s = s.split('${workspaceFolder}').join(folder);
  if (s === '~' || s.startsWith('~/')) s = path.join(os.homedir(), s.slice(1));
  if (!path.isAbsolute(s) && s.includes('/') && folder) s = path.resolve(folder, s);
  return s;
}

export function launchConfig(settings: PiSettings, folder: string | undefined, baseEnv: NodeJS.ProcessEnv): LaunchConfig {
  const env: NodeJS.ProcessEnv = { ...baseEnv };
  for (const [k, v] of Object.entries(settings.env ?? {})) {
    if (v === null || v === undefined) delete env[k];
    else env[k] = folder ? String(v).split('${workspaceFolder}').join(folder) : String(v);
  }
  const sessions = (settings.sessionsDir ?? '').trim();
  if (sessions) env.PI_LSP_SESSIONS = expandPath(sessions, folder);
  const command = expandPath(settings.path?.trim() || 'pi-lsp', folder);
  const model = (settings.model ?? '').trim() || undefined;
  return { command, env, model };
}
