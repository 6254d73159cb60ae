// The status bar item: model · mode · context %, for the current agent.
import * as vscode from 'vscode';
import type { Agent } from './agent';
import { attachLabel } from './attach';
import { contextPercent, memoryText, modeName, touches } from './displayState';
import { runningJobs } from './jobsTree';
import type { AgentManager } from './manager';
import { goalStatus } from './goal';
import type { DisplayState } from './protocol';


/** The status bar text for a display state. */
export function statusText(s: DisplayState): string {
  const parts = [s.model || 'no model', modeName(s)];
  const pct = contextPercent(s);
  if (pct !== undefined) parts.push(`${pct}%`);
  const cost = (s.tokens?.cost as { total?: number } | undefined)?.total;
  if (cost) parts.push(cost >= 1 ? `$${cost.toFixed(2)}` : `$${cost.toFixed(3)}`);
  if (s.sandbox === 'off' || s.sandbox === 'unavailable') parts.push('$(warning) no sandbox');
  else if (s.sandbox === 'read-only') parts.push('read-only');
  const m = memoryText(s);
  if (m) parts.push(m);
  const jobs = runningJobs(s.jobs);
  if (jobs) parts.push(`$(terminal) ${jobs} job${jobs === 1 ? '' : 's'}`);
  const g = goalStatus(s.goal);
  if (g) parts.push(g);
  return parts.join(' · ');
}

/** The tooltip's mode line: the same name as the status bar text. */
export function modeLine(s: DisplayState): string {
  return `mode: ${modeName(s)}${s.yolo ? ' (yolo)' : ''}`;
}

/** The top-level state keys the status bar shows. */
const SHOWN = ['model', 'mode', 'yolo', 'sandbox', 'thinkingLevel', 'tokens', 'status', 'memory', 'jobs', 'goal'];

export class StatusBar implements vscode.Disposable {
  readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  private agentSubs: vscode.Disposable[] = [];
  private readonly sub: vscode.Disposable;
  private running: boolean | undefined; // the last piLsp.running context value set

  constructor(manager: AgentManager) {
    this.item.command = 'piLsp.focusChat';
    this.item.name = 'pi-lsp';
    this.sub = manager.onDidChangeCurrent((a) => this.attach(a));
    this.attach(manager.current());
  }

  private attach(a: Agent): void {
    this.agentSubs.forEach((s) => s.dispose());
    this.agentSubs = [
      a.onDidChangeDisplay((c) => {
        // Streamed text changes nothing shown here: skip frames that touch none of it.
        if (c.kind === 'ops' && !c.result.ops.some((o) => SHOWN.some((k) => touches(o, k)))) return;
        this.update(a);
      }),
      a.onDidChangeStatus(() => this.update(a)),
      a.onDidChangePending(() => this.update(a)),
    ];
    this.update(a);
  }

  private update(a: Agent): void {
    const s = a.display.state;
    if (a.status === 'stopped' && !a.display.synced) {
      this.item.hide();
      return;
    }
    const running = a.isRunning;
    const icon = a.status === 'crashed' || a.status === 'failed' ? '$(error)' : running ? '$(sync~spin)' : '$(hubot)';
    const waiting = a.pending.length;
    const attached = attachLabel(a.attached);
    this.item.text = `${icon} ${statusText(s)}${attached ? ` · $(plug) ${attached}` : ''}${waiting ? ` · $(bell-dot) ${waiting}` : ''}`;
    this.item.backgroundColor = waiting ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    const t = s.tokens;
    this.item.tooltip = [
      `pi-lsp (${a.name}): ${a.status}${running ? `, ${s.status}` : ''}${attached ? ` — ${attached} (another pi-lsp process owns the session)` : ''}`,
      `model: ${s.model ?? '—'}  thinking: ${s.thinkingLevel ?? 'off'}`,
      modeLine(s),
      `sandbox: ${s.sandbox ?? '—'}`,
      t?.contextWindow ? `context: ${t.contextTokens ?? 0} / ${t.contextWindow} tokens` : '',
      s.memory?.mode === 'observational'
        ? `memory: ${s.memory.observedMessages ?? 0} messages observed, ${s.memory.observationTokens ?? 0} tokens of observations, ` +
          `${s.memory.bufferedChunks ?? 0} chunks buffered` +
          (s.memory.lastReflection ? `, last reflection ${s.memory.lastReflection.tokensBefore}→${s.memory.lastReflection.tokens}` : '')
        : '',
    ]
      .filter(Boolean)
      .join('\n');
    if (running !== this.running) {
      this.running = running;
      void vscode.commands.executeCommand('setContext', 'piLsp.running', running);
    }
    this.item.show();
  }

  dispose(): void {
    this.agentSubs.forEach((s) => s.dispose());
    this.sub.dispose();
    this.item.dispose();
  }
}
