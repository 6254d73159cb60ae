// A stub of the `vscode` module, enough for the extension to activate under plain Node. It keeps
// what the extension registers (commands, views, tree providers) and lets a test answer the UI
// (quick picks, input boxes, notifications) through `control`.
import * as path from 'path';

type Listener<T> = (e: T) => unknown;

export class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  static from(...ds: Array<{ dispose(): unknown }>): Disposable {
    return new Disposable(() => ds.forEach((d) => d.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export class EventEmitter<T> {
  private listeners = new Set<Listener<T>>();
  readonly event = (l: Listener<T>): Disposable => {
    this.listeners.add(l);
    return new Disposable(() => this.listeners.delete(l));
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly fsPath: string,
  ) {}
  static file(p: string): Uri {
    return new Uri('file', path.resolve(p));
  }
  static parse(s: string): Uri {
    if (s.startsWith('file://')) return new Uri('file', decodeURIComponent(s.slice(7)));
    const i = s.indexOf(':');
    return new Uri(i > 0 ? s.slice(0, i) : 'file', s);
  }
  static joinPath(base: Uri, ...parts: string[]): Uri {
    return new Uri(base.scheme, path.join(base.fsPath, ...parts));
  }
  get path(): string {
    return this.fsPath;
  }
  toString(): string {
    return this.scheme === 'file' ? `file://${this.fsPath}` : this.fsPath;
  }
}

export class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}
export class ThemeColor {
  constructor(readonly id: string) {}
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}
export class TreeItem {
  id?: string;
  description?: string;
  tooltip?: string;
  iconPath?: ThemeIcon;
  contextValue?: string;
  command?: unknown;
  constructor(
    readonly label: string,
    readonly collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}
export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}
export enum ConfigurationTarget {
  Global = 1,
  Workspace = 2,
  WorkspaceFolder = 3,
}

export enum QuickPickItemKind {
  Separator = -1,
  Default = 0,
}
export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export interface WorkspaceFolder {
  uri: Uri;
  name: string;
  index: number;
}

type Picker = (items: unknown[], options: unknown) => unknown;

/** The test's handle on the stub. */
export const control = {
  config: {} as Record<string, unknown>,
  folders: [] as WorkspaceFolder[],
  commands: new Map<string, (...a: unknown[]) => unknown>(),
  executed: [] as Array<{ id: string; args: unknown[] }>,
  context: new Map<string, unknown>(),
  views: new Map<string, unknown>(),
  treeProviders: new Map<string, unknown>(),
  output: [] as string[],
  messages: [] as Array<{ level: string; message: string; items: string[] }>,
  /** Answers showQuickPick; the default picks nothing. */
  quickPick: ((_items: unknown[]) => undefined) as Picker,
  /** Answers showInputBox; the default cancels. */
  inputBox: ((_o: unknown) => undefined) as (o: unknown) => string | undefined,
  /** Answers a notification (showInformationMessage…); the default dismisses it. */
  notification: ((_m: string, _items: string[]) => undefined) as (m: string, items: string[]) => string | undefined,
  statusBarText: '',
  /** What languages.getDiagnostics answers, by fsPath (a test's fake language server). */
  diagnostics: new Map<string, Diagnostic[]>(),
  /** When set, computes what languages.getDiagnostics answers (a fake language server). */
  diagnosticsProvider: undefined as ((fsPath: string) => Diagnostic[]) | undefined,
  /** Files openTextDocument opened. */
  opened: [] as string[],
  reset(): void {
    this.config = {};
    this.folders = [];
    this.commands.clear();
    this.executed = [];
    this.context.clear();
    this.views.clear();
    this.treeProviders.clear();
    this.output = [];
    this.messages = [];
    this.quickPick = () => undefined;
    this.inputBox = () => undefined;
    this.notification = () => undefined;
    this.diagnostics.clear();
    this.diagnosticsProvider = undefined;
    this.opened = [];
  },
};

export const version = '1.99.0-stub';

const activeEditorEmitter = new EventEmitter<unknown>();
const foldersEmitter = new EventEmitter<{ added: WorkspaceFolder[]; removed: WorkspaceFolder[] }>();
const configEmitter = new EventEmitter<{ affectsConfiguration(s: string): boolean }>();

function notify(level: string) {
  return (message: string, ...items: unknown[]): Promise<string | undefined> => {
    const labels = items.filter((i): i is string => typeof i === 'string');
    control.messages.push({ level, message, items: labels });
    return Promise.resolve(control.notification(message, labels));
  };
}

export const window = {
  activeTextEditor: undefined as unknown,
  onDidChangeActiveTextEditor: activeEditorEmitter.event,
  createOutputChannel(name: string) {
    return {
      name,
      append: (s: string) => control.output.push(s),
      appendLine: (s: string) => control.output.push(`${s}\n`),
      show: () => undefined,
      clear: () => undefined,
      dispose: () => undefined,
    };
  },
  createStatusBarItem() {
    const item = {
      text: '',
      tooltip: '',
      command: '',
      name: '',
      visible: false,
      show() {
        item.visible = true;
        control.statusBarText = item.text;
      },
      hide() {
        item.visible = false;
      },
      dispose() {},
    };
    return item;
  },
  registerWebviewViewProvider(id: string, provider: unknown) {
    control.views.set(id, provider);
    return new Disposable(() => control.views.delete(id));
  },
  createTreeView(id: string, o: { treeDataProvider: unknown }) {
    control.treeProviders.set(id, o.treeDataProvider);
    return new Disposable(() => control.treeProviders.delete(id));
  },
  registerTreeDataProvider(id: string, p: unknown) {
    control.treeProviders.set(id, p);
    return new Disposable(() => control.treeProviders.delete(id));
  },
  showQuickPick(items: unknown[] | Promise<unknown[]>, options?: unknown) {
    return Promise.resolve(items).then((its) => control.quickPick(its, options));
  },
  showInputBox(options?: unknown) {
    return Promise.resolve(control.inputBox(options));
  },
  showInformationMessage: notify('info'),
  showWarningMessage: notify('warning'),
  showErrorMessage: notify('error'),
  withProgress<R>(_o: unknown, task: (p: { report(v: unknown): void }) => Promise<R>): Promise<R> {
    return task({ report: () => undefined });
  },
};

export const workspace = {
  get workspaceFolders(): WorkspaceFolder[] | undefined {
    return control.folders.length ? control.folders : undefined;
  },
  getWorkspaceFolder(uri: Uri): WorkspaceFolder | undefined {
    return control.folders.find((f) => uri.fsPath === f.uri.fsPath || uri.fsPath.startsWith(`${f.uri.fsPath}${path.sep}`));
  },
  getConfiguration(section: string) {
    return {
      get<T>(key: string, dflt?: T): T | undefined {
        const v = control.config[`${section}.${key}`];
        return (v === undefined ? dflt : v) as T | undefined;
      },
      async update(key: string, value: unknown): Promise<void> {
        control.config[`${section}.${key}`] = value;
        fireConfigChange(`${section}.${key}`);
      },
    };
  },
  textDocuments: [] as Array<{ uri: Uri; getText(): string }>,
  /** Reads the file from disk (the stub has no documents of its own). */
  async openTextDocument(u: Uri) {
    const nodeFs = await import('fs');
    const text = await nodeFs.promises.readFile(u.fsPath, 'utf8');
    control.opened.push(u.fsPath);
    const lines = text.split('\n');
    return { uri: u, getText: () => text, lineAt: (n: number) => ({ text: lines[n] ?? '' }) };
  },
  fs: {
    writeFile: async (u: Uri, data: Uint8Array) => {
      const nodeFs = await import('fs');
      await nodeFs.promises.mkdir(path.dirname(u.fsPath), { recursive: true });
      await nodeFs.promises.writeFile(u.fsPath, data);
    },
  },
  onDidChangeWorkspaceFolders: foldersEmitter.event,
  onDidChangeConfiguration: configEmitter.event,
};

export const commands = {
  registerCommand(id: string, fn: (...a: unknown[]) => unknown) {
    control.commands.set(id, fn);
    return new Disposable(() => control.commands.delete(id));
  },
  async executeCommand(id: string, ...args: unknown[]): Promise<unknown> {
    control.executed.push({ id, args });
    if (id === 'setContext') {
      control.context.set(String(args[0]), args[1]);
      return undefined;
    }
    const fn = control.commands.get(id);
    return fn ? fn(...args) : undefined;
  },
};

export const env = {
  openExternal: async (_u: Uri) => true,
};

/** Fires onDidChangeConfiguration for the given section. */
export function fireConfigChange(section: string): void {
  configEmitter.fire({ affectsConfiguration: (s: string) => s === section || section.startsWith(`${s}.`) });
}

/** Makes a file the active editor's document (undefined: no editor) and fires the event. */
export function setActiveEditor(fsPath: string | undefined): void {
  const ed = fsPath ? { document: { uri: Uri.file(fsPath) } } : undefined;
  window.activeTextEditor = ed;
  activeEditorEmitter.fire(ed);
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}
export class Range {
  constructor(
    readonly start: Position,
    readonly end: Position,
  ) {}
}
export enum DiagnosticSeverity {
  Error = 0,
  Warning = 1,
  Information = 2,
  Hint = 3,
}
export class Diagnostic {
  source?: string;
  code?: string | number | { value: string | number };
  constructor(
    readonly range: Range,
    readonly message: string,
    readonly severity: DiagnosticSeverity = DiagnosticSeverity.Error,
  ) {}
}

const diagnosticsEmitter = new EventEmitter<{ uris: Uri[] }>();

export const languages = {
  getDiagnostics(u: Uri): Diagnostic[] {
    return control.diagnosticsProvider?.(u.fsPath) ?? control.diagnostics.get(u.fsPath) ?? [];
  },
  onDidChangeDiagnostics: diagnosticsEmitter.event,
};

/** Sets a file's diagnostics and fires onDidChangeDiagnostics, as a language server would. */
export function setDiagnostics(fsPath: string, ds: Diagnostic[]): void {
  control.diagnostics.set(fsPath, ds);
  diagnosticsEmitter.fire({ uris: [Uri.file(fsPath)] });
}
