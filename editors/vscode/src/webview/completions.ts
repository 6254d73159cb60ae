// Slash-command completion for the chat input, from commands/list.
import type { CommandInfo } from '../protocol';
import { el } from './render';

/** The commands whose name starts with what follows the `/` (all of them for a bare `/`). */
export function matchCommands(commands: CommandInfo[], input: string): CommandInfo[] {
  const m = /^\/(\S*)$/.exec(input);
  if (!m) return [];
  const prefix = m[1].toLowerCase();
  return commands.filter((c) => c.name.toLowerCase().startsWith(prefix)).slice(0, 50);
}

export class Completions {
  private commands: CommandInfo[] | undefined;
  private shown: CommandInfo[] = [];
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
    return this.shown.length > 0;
  }

  hide(): void {
    this.shown = [];
    this.box.classList.add('hidden');
    this.box.replaceChildren();
  }

  private update(): void {
    const v = this.input.value;
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
