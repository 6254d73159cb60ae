// First run (issue 33, Missing 2): the walkthrough's steps. Pick a provider, paste its key (kept
// in VS Code's SecretStorage, never in settings, and handed to pi-lsp in its environment when it
// starts), pick a model (saved as piLsp.model).
import * as vscode from 'vscode';
import type { AgentManager } from './manager';
import type { ModelListResult } from './protocol';

/** A provider the walkthrough offers, with the environment variable pi-lsp reads its key from (llm/builtin.go). */
export interface ProviderChoice {
  id: string;
  label: string;
  /** Empty for a provider that needs no key (a local server). */
  keyEnv: string;
}

export const PROVIDERS: readonly ProviderChoice[] = [
  { id: 'openai', label: 'OpenAI', keyEnv: 'OPENAI_API_KEY' },
  { id: 'openrouter', label: 'OpenRouter', keyEnv: 'OPENROUTER_API_KEY' },
  { id: 'deepseek', label: 'DeepSeek', keyEnv: 'DEEPSEEK_API_KEY' },
  { id: 'groq', label: 'Groq', keyEnv: 'GROQ_API_KEY' },
  { id: 'gemini', label: 'Google Gemini', keyEnv: 'GEMINI_API_KEY' },
  { id: 'ollama', label: 'Ollama (local, no key)', keyEnv: '' },
];

/** The label of the choice for a provider of one's own models.json. */
export const CUSTOM_PROVIDER = 'Another provider (models.json)…';

const PROVIDER_KEY = 'piLsp.setup.provider';
const SECRET_ENVS = 'piLsp.setup.secretEnvs';
const secretName = (env: string) => `piLsp.env.${env}`;

/** An environment variable name (what apiKey in models.json names). */
export function validEnvName(s: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(s);
}

/**
 * The keys kept in SecretStorage, as environment variables for the server. Settings' piLsp.env
 * is applied after these, so an explicit setting still wins.
 */
export async function secretEnv(context: Pick<vscode.ExtensionContext, 'secrets' | 'globalState'>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const env of context.globalState.get<string[]>(SECRET_ENVS) ?? []) {
    const v = await context.secrets.get(secretName(env));
    if (v) out[env] = v;
  }
  return out;
}

export function registerSetup(context: vscode.ExtensionContext, manager: AgentManager): vscode.Disposable[] {
  const restartAll = async () => {
    for (const a of manager.all()) if (a.status === 'ready' || a.status === 'crashed' || a.status === 'failed') await a.restart();
  };

  const pickProvider = async (): Promise<ProviderChoice | undefined> => {
    const items = [...PROVIDERS.map((p) => ({ label: p.label, description: p.keyEnv ? `key in ${p.keyEnv}` : 'no key', p })), { label: CUSTOM_PROVIDER, description: 'name the environment variable its apiKey reads', p: undefined }];
    const pick = await vscode.window.showQuickPick(items, { title: 'pi-lsp: pick a provider' });
    if (!pick) return undefined;
    let choice = pick.p;
    if (!choice) {
      const env = await vscode.window.showInputBox({
        title: 'pi-lsp: the environment variable of your provider’s key',
        prompt: 'As named by apiKey in models.json, for example VLLM_KEY',
        validateInput: (v) => (validEnvName(v.trim()) ? undefined : 'Letters, digits and _ only'),
      });
      if (!env) return undefined;
      choice = { id: 'custom', label: 'custom', keyEnv: env.trim() };
    }
    await context.globalState.update(PROVIDER_KEY, choice);
    return choice;
  };

  const pasteKey = async (): Promise<boolean> => {
    const provider = context.globalState.get<ProviderChoice>(PROVIDER_KEY) ?? (await pickProvider());
    if (!provider) return false;
    if (!provider.keyEnv) {
      void vscode.window.showInformationMessage(`pi-lsp: ${provider.label} needs no key.`);
      return true;
    }
    const key = await vscode.window.showInputBox({
      title: `pi-lsp: ${provider.label} API key`,
      prompt: `Kept in VS Code's secret storage and given to pi-lsp as ${provider.keyEnv}`,
      password: true,
      ignoreFocusOut: true,
    });
    if (!key?.trim()) return false;
    await context.secrets.store(secretName(provider.keyEnv), key.trim());
    const envs = new Set(context.globalState.get<string[]>(SECRET_ENVS) ?? []);
    envs.add(provider.keyEnv);
    await context.globalState.update(SECRET_ENVS, [...envs]);
    await restartAll();
    void vscode.window.showInformationMessage(`pi-lsp: the ${provider.label} key is saved (secret storage); pi-lsp restarted with it.`);
    return true;
  };

  const pickModel = async (): Promise<string | undefined> => {
    const a = manager.current();
    const r = await a.request<ModelListResult>('model/list', {});
    const provider = context.globalState.get<ProviderChoice>(PROVIDER_KEY);
    const models = (r.models ?? []).filter((m) => !provider || provider.id === 'custom' || m.provider === provider.id);
    const items = (models.length ? models : r.models ?? []).map((m) => ({
      label: `${m.provider}/${m.id}`,
      description: m.name && m.name !== m.id ? m.name : '',
      detail: m.authenticated === false ? 'no key yet' : m.contextWindow ? `${Math.round(m.contextWindow / 1000)}k context` : '',
    }));
    const pick = await vscode.window.showQuickPick(items, { title: 'pi-lsp: pick a model' });
    if (!pick) return undefined;
    await a.request('model/set', { model: pick.label });
    // The default for new sessions and new windows too.
    await vscode.workspace.getConfiguration('piLsp').update('model', pick.label, vscode.ConfigurationTarget.Global);
    return pick.label;
  };

  return [
    vscode.commands.registerCommand('piLsp.setup.provider', pickProvider),
    vscode.commands.registerCommand('piLsp.setup.key', pasteKey),
    vscode.commands.registerCommand('piLsp.setup.model', pickModel),
    vscode.commands.registerCommand('piLsp.setup.clearKeys', async () => {
      for (const env of context.globalState.get<string[]>(SECRET_ENVS) ?? []) await context.secrets.delete(secretName(env));
      await context.globalState.update(SECRET_ENVS, []);
      await restartAll();
    }),
  ];
}
