// Entry point of the pi-lsp VS Code extension: wires the per-folder servers to the chat view,
// the Tasks and Session trees, the status bar and the commands.
import * as vscode from 'vscode';
import { CHAT_VIEW_ID, ChatViewProvider } from './chatView';
import { DiffReviews } from './diffReview';
import { registerCommands } from './commands';
import { AgentManager } from './manager';
import { SessionTreeProvider } from './sessionTree';
import { StatusBar } from './statusBar';
import { TasksTreeProvider } from './tasksTree';
import { JobsTreeProvider, registerJobCommands } from './jobsTree';
import { registerSetup, secretEnv } from './setup';

/** What activate returns; the tests use it to reach the parts. */
export interface PiLspApi {
  manager: AgentManager;
  chat: ChatViewProvider;
  tasks: TasksTreeProvider;
  jobs: JobsTreeProvider;
  sessionTree: SessionTreeProvider;
  output: vscode.OutputChannel;
}

/** workspaceState key: folder URI → the session file it had open last. */
const LAST_SESSION = 'piLsp.lastSession';

export function activate(context: vscode.ExtensionContext): PiLspApi {
  const output = vscode.window.createOutputChannel('pi-lsp');
  let chat: ChatViewProvider | undefined;
  const reviews = new DiffReviews();
  const state = context.workspaceState;
  const manager = new AgentManager({
    reviews,
    secretEnv: context.secrets && context.globalState ? () => secretEnv(context) : undefined,
    lastSession: state && {
      get: (key) => state.get<Record<string, string>>(LAST_SESSION)?.[key],
      set: (key, p) => void state.update(LAST_SESSION, { ...state.get<Record<string, string>>(LAST_SESSION), [key]: p }),
    },
    output,
    chatVisible: () => chat?.visible ?? false,
    focusChat: () => void vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`),
  });
  chat = new ChatViewProvider(context.extensionUri, manager);
  const tasks = new TasksTreeProvider(manager);
  const jobs = new JobsTreeProvider(manager);
  const sessionTree = new SessionTreeProvider(manager);
  const status = new StatusBar(manager);
  context.subscriptions.push(
    output,
    reviews,
    { dispose: () => void manager.dispose() },
    chat,
    tasks,
    sessionTree,
    status,
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, chat),
    vscode.window.createTreeView('piLsp.tasks', { treeDataProvider: tasks }),
    jobs,
    vscode.window.createTreeView('piLsp.jobs', { treeDataProvider: jobs }),
    ...registerJobCommands(manager),
    vscode.window.createTreeView('piLsp.sessionTree', { treeDataProvider: sessionTree, showCollapseAll: true }),
    ...registerCommands({ manager, chat, sessionTree }),
    ...registerSetup(context, manager),
  );
  return { manager, chat, tasks, jobs, sessionTree, output };
}

export function deactivate(): void {
  // Servers are stopped by the disposables registered in activate.
}
