// Review before apply: a pending edit or write opens in VS Code's diff editor, the file as it is
// (left, read-only) against the agent's version (right, an editable scratch file). The user may
// revert hunks with the diff editor's own "Revert Block" arrows or edit the right side, then
// Accept (the right side's text goes back as `content` when it differs from the proposal) or
// Reject (with an optional reason) from the editor title. Approving from the chat card or a
// notification while the review is open sends the right side's text the same way (reviewed).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ApprovalPreview, ApprovalReply } from './protocol';
import { declineReply, reviewGrantReply, reviewReply, type ReviewOutside } from './replies';

export const BEFORE_SCHEME = 'pi-lsp-before';

interface Review {
  key: string;
  preview: ApprovalPreview;
  afterUri: vscode.Uri;
  beforeUri: vscode.Uri;
  outside?: ReviewOutside;
  answer(reply: ApprovalReply): void;
}

/** The open reviews, by the scratch file of their right side. */
export class DiffReviews implements vscode.Disposable {
  private readonly reviews = new Map<string, Review>();
  private readonly before = new Map<string, string>();
  private readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-lsp-review-'));
  private readonly subs: vscode.Disposable[] = [];
  private seq = 0;

  constructor() {
    const provider: vscode.TextDocumentContentProvider = { provideTextDocumentContent: (u) => this.before.get(u.toString()) ?? '' };
    this.subs.push(
      vscode.workspace.registerTextDocumentContentProvider?.(BEFORE_SCHEME, provider) ?? new vscode.Disposable(() => undefined),
      vscode.commands.registerCommand('piLsp.review.accept', (u?: vscode.Uri) => this.accept(u)),
      vscode.commands.registerCommand('piLsp.review.reject', (u?: vscode.Uri) => this.reject(u)),
      vscode.commands.registerCommand('piLsp.review.acceptAllowFolder', (u?: vscode.Uri) => this.acceptAllowFolder(u)),
      vscode.window.onDidChangeActiveTextEditor?.(() => this.updateContext()) ?? new vscode.Disposable(() => undefined),
    );
  }

  /** Whether a preview can be reviewed in the diff editor. */
  static reviewable(p: ApprovalPreview | undefined): p is ApprovalPreview {
    return !!p && !p.cut && typeof p.before === 'string' && typeof p.after === 'string';
  }

  /**
   * Opens the diff editor for a pending approval; answer is called once with the reply. An edit
   * outside the workspace (`outside`) shows the warning in the title and gets "Accept and Allow
   * This Folder" beside Accept and Reject (the alwaysAllowPath decision).
   */
  async open(key: string, preview: ApprovalPreview, answer: (r: ApprovalReply) => void, outside?: ReviewOutside): Promise<void> {
    for (const r of this.reviews.values()) if (r.key === key) return this.show(r);
    const name = path.basename(preview.path);
    const sub = path.join(this.dir, String(++this.seq));
    fs.mkdirSync(sub, { recursive: true });
    const afterPath = path.join(sub, name);
    fs.writeFileSync(afterPath, preview.after);
    const afterUri = vscode.Uri.file(afterPath);
    const beforeUri = vscode.Uri.parse(`${BEFORE_SCHEME}:${preview.path}?${this.seq}`);
    this.before.set(beforeUri.toString(), preview.before);
    const r: Review = { key, preview, afterUri, beforeUri, outside, answer };
    this.reviews.set(afterUri.fsPath, r);
    await this.show(r);
  }

  private async show(r: Review): Promise<void> {
    const name = path.basename(r.preview.path);
    const title = r.outside
      ? `${name}: ${r.outside.warning} — Accept, Accept and Allow ${r.outside.dir}, or Reject in the title bar`
      : `${name}: pi-lsp's change${r.preview.newFile ? ' (new file)' : ''} — Accept or Reject in the title bar`;
    await vscode.commands.executeCommand('vscode.diff', r.beforeUri, r.afterUri, title, { preview: false });
    this.updateContext();
  }

  /** Closes the review of key (answered elsewhere: the card, a notification, an abort). */
  close(key: string): void {
    for (const [p, r] of this.reviews) {
      if (r.key !== key) continue;
      this.reviews.delete(p);
      this.before.delete(r.beforeUri.toString());
      void this.closeTabs(r);
    }
    this.updateContext();
  }

  private async closeTabs(r: Review): Promise<void> {
    const groups = vscode.window.tabGroups;
    const tabs = (groups?.all ?? []).flatMap((g) => g.tabs).filter((t) => {
      const input = t.input as { modified?: vscode.Uri; uri?: vscode.Uri } | undefined;
      return input?.modified?.fsPath === r.afterUri.fsPath || input?.uri?.fsPath === r.afterUri.fsPath;
    });
    // Unsaved edits of the scratch file are dropped without asking: they were sent or discarded.
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === r.afterUri.fsPath) as vscode.TextDocument | undefined;
    if (doc?.isDirty) await doc.save();
    if (tabs.length) await groups.close(tabs);
    // The scratch file goes even where there are no tabs to close.
    fs.rmSync(path.dirname(r.afterUri.fsPath), { recursive: true, force: true });
  }

  private find(u?: vscode.Uri): Review | undefined {
    const target = u ?? vscode.window.activeTextEditor?.document.uri;
    if (target) {
      const r = this.reviews.get(target.fsPath);
      if (r) return r;
      for (const x of this.reviews.values()) if (x.beforeUri.toString() === target.toString()) return x;
    }
    return this.reviews.size === 1 ? [...this.reviews.values()][0] : undefined;
  }

  /** The right side's current text (the open document, saved or not). */
  private acceptedText(r: Review): string {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === r.afterUri.fsPath);
    return doc ? doc.getText() : fs.readFileSync(r.afterUri.fsPath, 'utf8');
  }

  /**
   * An allowing reply given outside the diff editor (the chat card's Approve, a notification's
   * button) for the review of key, with what the right side holds: the user's reverted hunks and
   * edits go with it (as `content`, as Accept in the title bar sends them) instead of being lost.
   * A decline, or a key without an open review, is returned as it is.
   */
  reviewed(key: string, reply: ApprovalReply): ApprovalReply {
    if (reply.decision === 'decline') return reply;
    const r = [...this.reviews.values()].find((x) => x.key === key);
    if (!r) return reply;
    const { content } = reviewReply(r.preview.after, this.acceptedText(r));
    return content === undefined ? reply : { ...reply, content };
  }

  async accept(u?: vscode.Uri): Promise<void> {
    const r = this.find(u);
    if (!r) return void vscode.window.showWarningMessage('pi-lsp: no pending edit to accept here.');
    const reply = reviewReply(r.preview.after, this.acceptedText(r));
    r.answer(reply);
    this.close(r.key);
  }

  /** Accepts what the right side holds and grants the folder outside the workspace (alwaysAllowPath). */
  async acceptAllowFolder(u?: vscode.Uri): Promise<void> {
    const r = this.find(u);
    if (!r) return void vscode.window.showWarningMessage('pi-lsp: no pending edit to accept here.');
    if (!r.outside) return void vscode.window.showWarningMessage('pi-lsp: this edit is inside the workspace; there is no folder to allow.');
    r.answer(reviewGrantReply(r.preview.after, this.acceptedText(r)));
    this.close(r.key);
  }

  async reject(u?: vscode.Uri): Promise<void> {
    const r = this.find(u);
    if (!r) return void vscode.window.showWarningMessage('pi-lsp: no pending edit to reject here.');
    const reason = await vscode.window.showInputBox({ prompt: 'Why? (optional, sent to the agent)', placeHolder: 'e.g. keep the old name' });
    if (reason === undefined && !this.reviews.has(r.afterUri.fsPath)) return;
    r.answer(declineReply(reason));
    this.close(r.key);
  }

  private updateContext(): void {
    const u = vscode.window.activeTextEditor?.document.uri;
    const r = u && (this.reviews.get(u.fsPath) ?? [...this.reviews.values()].find((x) => x.beforeUri.toString() === u.toString()));
    void vscode.commands.executeCommand('setContext', 'piLsp.reviewing', !!r);
    void vscode.commands.executeCommand('setContext', 'piLsp.reviewOutside', !!r && !!r.outside);
  }

  dispose(): void {
    this.subs.forEach((s) => s.dispose());
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
