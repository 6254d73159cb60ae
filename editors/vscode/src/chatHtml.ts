// The chat webview's HTML page. A pure function, shared by the extension and the webview tests.
// The Content-Security-Policy allows no remote resource: styles and the script come only from
// the extension (`cspSource`), the script also needs the per-page nonce, and nothing inline runs.

export interface ChatHtmlOptions {
  /** webview.cspSource (the origin of the extension's local resources). */
  cspSource: string;
  /** A fresh random nonce for this page. */
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

export function contentSecurityPolicy(o: Pick<ChatHtmlOptions, 'cspSource' | 'nonce'>): string {
  return [
    "default-src 'none'",
    `style-src ${o.cspSource}`,
    `font-src ${o.cspSource}`,
    `img-src ${o.cspSource} data:`,
    `script-src 'nonce-${o.nonce}'`,
    "connect-src 'none'",
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

function attr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

export function chatHtml(o: ChatHtmlOptions): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(o))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(o.styleUri)}">
<title>pi-lsp</title>
</head>
<body>
<div id="app">
  <header id="header">
    <button id="mode" class="chip" title="Select mode"></button>
    <button id="model" class="chip" title="Select model"></button>
    <button id="thinking" class="chip" title="Thinking level"></button>
    <span id="phase" class="phase"></span>
    <span class="spacer"></span>
    <span id="cost" class="cost" title="Session cost"></span>
    <span id="context" class="context" title="Context use"><span class="meter"><span id="context-bar" class="bar"></span></span><span id="context-label"></span></span>
  </header>
  <div id="goal" class="goal hidden"><span id="goal-text"></span><button id="goal-stop" class="danger" title="Stop the goal (goal/clear)">Stop goal</button></div>
  <div id="server-banner" class="banner hidden"></div>
  <details id="tasks-panel" class="tasks hidden" open><summary>Tasks <span id="tasks-count"></span></summary><ul id="tasks"></ul></details>
  <main id="transcript" aria-live="polite"></main>
  <section id="status-area">
    <div id="retry" class="retry hidden"></div>
    <div id="compaction" class="compaction hidden"></div>
    <div id="errors"></div>
  </section>
  <section id="pending"></section>
  <section id="queue" class="queue hidden"></section>
  <footer id="composer">
    <div id="completions" class="completions hidden" role="listbox"></div>
    <div id="attachments" class="attachments hidden"></div>
    <textarea id="input" rows="3" placeholder="Ask pi-lsp… (Enter sends, Shift+Enter new line, / commands, @ files)"></textarea>
    <div class="buttons">
      <button id="send" class="primary" title="Send (Enter); steers while running">Send</button>
      <button id="followup" title="Queue as a follow-up for when the run ends">Follow-up</button>
      <button id="abort" class="danger" title="Abort (Esc)" disabled>Stop</button>
    </div>
  </footer>
</div>
<script nonce="${attr(o.nonce)}" src="${attr(o.scriptUri)}"></script>
</body>
</html>`;
}
