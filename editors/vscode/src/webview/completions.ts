// Completion for the chat input: slash commands from commands/list, and @-mentions of workspace
// files from files/search and of MCP resources (@server:uri, from mcp/resources), asked as the
// user types after an `@`.
import type { CommandInfo, FileMatch } from '../protocol';
import { el } from './render';

/** The commands whose name starts with what follows the `/` (all of them for a bare `/`). */
export function matchCommands(commands: CommandInfo[], input: string): CommandInfo[] {
  const m = /^\/(\S*)$/.exec(input);
  if (!m) return [];
  const prefix = m[1].toLowerCase();
  return commands.filter((c) => c.name.toLowerCase().startsWith(prefix)).slice(0, 50);
}

/** The `@query` being typed at the caret, or undefined. */
export function mentionAt(value: string, caret: number): { start: number; query: string } | undefined {
  const m = /(^|\s)@([^\s@]*)$/.exec(value.slice(0, caret));
  return m ? { start: caret - m[2].length - 1, query: m[2] } : undefined;
}

export class Completions {
  private commands: CommandInfo[] | undefined;
  private shown: CommandInfo[] = [];
  private files: FileMatch[] = [];
  private mention: { start: number; query: string } | undefined;
  /** Files picked from the @ list: sent as context when their `@path` is still in the text. */
  readonly mentioned = new Set<string>();
  /** Asks the extension for files/search (set by the page). */
  searchFiles: (query: string) => void = () => undefined;
  private active = 0;
  private requested = false;

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly box: HTMLElement,
    private readonly request: () => void,
  ) {
    input.addEventListener('input', () => this.update());
    // Hide when the input loses focus (late enough for a click on a row to land), unless it
    // got the focus back meanwhile.
    input.addEventListener('blur', () =>
      setTimeout(() => {
        if (document.activeElement !== input) this.hide();
      }, 150),
    );
  }

  setCommands(c: CommandInfo[]): void {
    this.commands = c;
    this.update();
  }

  get visible(): boolean {
    return this.shown.length > 0 || (this.mention !== undefined && this.files.length > 0);
  }

  /** files/search answered for query. */
  setFiles(query: string, files: FileMatch[]): void {
    if (!this.mention || this.mention.query !== query) return;
    this.files = files;
    this.active = 0;
    this.drawFiles();
  }

  private drawFiles(): void {
    if (!this.files.length) return this.hide();
    this.box.replaceChildren(
      ...this.files.map((f, i) => {
        const row = el('div', `completion completion-file${i === this.active ? ' active' : ''}`);
        row.setAttribute('role', 'option');
        const slash = f.abs ? f.path.lastIndexOf('/') : -1; // an MCP resource (server:uri) shows whole
        row.append(el('span', 'completion-name', `@${f.path.slice(slash + 1)}`), el('span', 'completion-desc', slash > 0 ? f.path.slice(0, slash) : f.abs ? '' : 'MCP resource'));
        row.addEventListener('mousedown', (e) => {
          e.preventDefault();
          this.acceptFile(i);
        });
        return row;
      }),
    );
    this.box.classList.remove('hidden');
  }

  private acceptFile(i: number): void {
    const f = this.files[i];
    const m = this.mention;
    if (!f || !m) return;
    const v = this.input.value;
    const caret = this.input.selectionStart ?? v.length;
    this.input.value = `${v.slice(0, m.start)}@${f.path} ${v.slice(caret)}`;
    const pos = m.start + f.path.length + 2;
    this.input.setSelectionRange(pos, pos);
    // An MCP resource (@server:uri, no abs path) is attached by pi-lsp from the text itself.
    if (f.abs) this.mentioned.add(f.path);
    this.hide();
    this.input.focus();
  }

  hide(): void {
    this.shown = [];
    this.files = [];
    this.mention = undefined;
    this.box.classList.add('hidden');
    this.box.replaceChildren();
  }

  private update(): void {
    const v = this.input.value;
    const m = mentionAt(v, this.input.selectionStart ?? v.length);
    if (m) {
      this.shown = [];
      this.mention = m;
      this.searchFiles(m.query);
      return;
    }
    if (!v.startsWith('/')) return this.hide();
    if (!this.commands) {
      if (!this.requested) {
        this.requested = true;
        this.request();
      }
      return;
    }
    this.shown = matchCommands(this.commands, v);
    this.active = 0;
    this.draw();
  }

  private draw(): void {
    if (!this.shown.length) return this.hide();
    this.box.replaceChildren(
      ...this.shown.map((c, i) => {
        const row = el('div', `completion${i === this.active ? ' active' : ''}`);
        row.setAttribute('role', 'option');
        row.append(el('span', 'completion-name', `/${c.name}`), el('span', 'completion-desc', c.description ?? ''));
        row.addEventListener('mousedown', (e) => {
          e.preventDefault();
          this.accept(i);
        });
        return row;
      }),
    );
    this.box.classList.remove('hidden');
  }

  private accept(i: number): void {
    const c = this.shown[i];
    if (!c) return;
    this.input.value = `/${c.name} `;
    this.hide();
    this.input.focus();
  }

  /** Handles a key in the input while the list is open; true when it consumed the key. */
  handleKey(e: KeyboardEvent): boolean {
    if (!this.visible) return false;
    if (this.mention && this.files.length) {
      switch (e.key) {
        case 'ArrowDown':
          this.active = (this.active + 1) % this.files.length;
          break;
        case 'ArrowUp':
          this.active = (this.active - 1 + this.files.length) % this.files.length;
          break;
        case 'Tab':
        case 'Enter':
          this.acceptFile(this.active);
          e.preventDefault();
          return true;
        case 'Escape':
          this.hide();
          break;
        default:
          return false;
      }
      e.preventDefault();
      this.drawFiles();
      return true;
    }
    switch (e.key) {
      case 'ArrowDown':
        this.active = (this.active + 1) % this.shown.length;
        break;
      case 'ArrowUp':
        this.active = (this.active - 1 + this.shown.length) % this.shown.length;
        break;
      case 'Tab':
      case 'Enter':
        this.accept(this.active);
        break;
      case 'Escape':
        this.hide();
        break;
      default:
        return false;
    }
    e.preventDefault();
    this.draw();
    return true;
  }

  /** Commands may have changed (skills/changed): ask again next time. */
  invalidate(): void {
    this.commands = undefined;
    this.requested = false;
  }
}
