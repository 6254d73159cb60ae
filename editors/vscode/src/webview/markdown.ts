// Safe markdown for model output. markdown-it (bundled by esbuild) with `html: false` escapes
// every raw HTML tag in the source, so `<script>` or `<img onerror>` from the model become text;
// its link validator refuses javascript:, vbscript:, file: and data: URLs. On top of that:
// images are never loaded (they would be remote resources) and are shown as their alt text, and
// only http(s) and mailto links stay links. The page's CSP (script-src with a nonce only) is the
// second fence: even a tag that slipped through could not run.
//
// Readability: fenced code is highlighted by highlight.js (its common languages, bundled) under
// a header with the language and Copy / Insert buttons; relative links, inline code that names a
// file and `path/to/file.go:12` in text become file links the page opens in the editor.
import MarkdownIt from 'markdown-it';
import hljs from 'highlight.js/lib/common';

const SAFE_LINK = /^(https?:|mailto:)/i;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * A file reference: a path with a slash or a file extension, optionally `:line` or `:line:col`.
 * Group 1 is the path, group 2 the line.
 */
const FILE_REF = /(?<![\w/.-])((?:\.{0,2}\/)?(?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,5})(?::(\d+)(?::\d+)?)?(?![\w/])/g;
/** Extensions that make a bare name (no slash, no line) a file. */
const KNOWN_EXT = /\.(go|ts|tsx|js|jsx|mjs|cjs|lua|py|rs|c|h|cc|cpp|hpp|java|kt|rb|php|cs|swift|sh|md|json|yaml|yml|toml|txt|css|html|vim|sql|proto|mod|sum)$/i;

/** Splits `file.go:12` or `./a/b.ts#L3` into a path and a line, or undefined for other text. */
export function fileRef(s: string): { path: string; line?: number } | undefined {
  const m = /^((?:\.{0,2}\/)?(?:[\w.-]+\/)*[\w-][\w.-]*\.[A-Za-z][A-Za-z0-9]{0,5})(?:(?::|#L)(\d+)(?::\d+)?)?$/.exec(s.trim());
  if (!m) return undefined;
  if (!m[2] && !m[1].includes('/') && !KNOWN_EXT.test(m[1])) return undefined;
  return { path: m[1], line: m[2] ? Number(m[2]) : undefined };
}

function fileLink(md: MarkdownIt, path: string, line: number | undefined, inner: string): string {
  const e = md.utils.escapeHtml;
  return `<a class="file-link" href="#" data-path="${e(path)}"${line ? ` data-line="${line}"` : ''} title="Open ${e(path)}${line ? `:${line}` : ''}">${inner}</a>`;
}

function create(): MarkdownIt {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: false });
  const e = md.utils.escapeHtml;
  const baseValidate = md.validateLink.bind(md);
  md.validateLink = (url: string) => {
    const u = url.trim();
    if (!HAS_SCHEME.test(u) && !u.startsWith('//')) return fileRef(u.replace(/^\.\//, './')) !== undefined;
    return baseValidate(url) && SAFE_LINK.test(u);
  };
  md.renderer.rules.image = (tokens, idx) => {
    const t = tokens[idx];
    const alt = t.children ? md.renderer.renderInlineAsText(t.children, md.options, {}) : t.content;
    return `<span class="md-image">[image: ${e(alt)}]</span>`;
  };
  const defaultLinkOpen =
    md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    const href = tokens[idx].attrGet('href') ?? '';
    const ref = !HAS_SCHEME.test(href) ? fileRef(href) : undefined;
    if (ref) {
      tokens[idx].attrSet('class', 'file-link');
      tokens[idx].attrSet('href', '#');
      tokens[idx].attrSet('data-path', ref.path);
      if (ref.line) tokens[idx].attrSet('data-line', String(ref.line));
      return self.renderToken(tokens, idx, options);
    }
    tokens[idx].attrSet('class', 'md-link');
    tokens[idx].attrSet('rel', 'noreferrer');
    return defaultLinkOpen(tokens, idx, options, env, self);
  };
  md.renderer.rules.code_inline = (tokens, idx) => {
    const c = tokens[idx].content;
    const code = `<code>${e(c)}</code>`;
    const ref = fileRef(c);
    return ref ? fileLink(md, ref.path, ref.line, code) : code;
  };
  // Plain text: `dir/file.go:12` (a slash or a line number is needed) becomes a file link.
  // Inside a link's text nothing is rewritten (no nested links).
  let inLink = 0;
  const open = md.renderer.rules.link_open;
  md.renderer.rules.link_open = (t, i, o, env, self) => {
    inLink++;
    return open(t, i, o, env, self);
  };
  md.renderer.rules.link_close = (t, i, o, _env, self) => {
    inLink = Math.max(0, inLink - 1);
    return self.renderToken(t, i, o);
  };
  md.renderer.rules.text = (tokens, idx) => {
    const c = tokens[idx].content;
    if (inLink) return e(c);
    let out = '';
    let last = 0;
    for (const m of c.matchAll(FILE_REF)) {
      if (!m[2] && !m[1].includes('/')) continue;
      out += e(c.slice(last, m.index)) + fileLink(md, m[1], m[2] ? Number(m[2]) : undefined, e(m[0]));
      last = (m.index ?? 0) + m[0].length;
    }
    return out + e(c.slice(last));
  };
  md.renderer.rules.fence = (tokens, idx) => {
    const t = tokens[idx];
    const lang = (t.info || '').trim().split(/\s+/)[0].toLowerCase();
    let body: string;
    let shown = lang;
    if (lang && hljs.getLanguage(lang)) {
      body = hljs.highlight(t.content, { language: lang, ignoreIllegals: true }).value;
    } else {
      const auto = t.content.length < 20000 ? hljs.highlightAuto(t.content) : undefined;
      body = auto && auto.relevance >= 5 ? auto.value : e(t.content);
      if (!shown) shown = auto && auto.relevance >= 5 && auto.language ? auto.language : 'text';
    }
    return (
      `<div class="code-block"><div class="code-head"><span class="code-lang">${e(shown)}</span>` +
      `<button class="code-copy" title="Copy to the clipboard">Copy</button>` +
      `<button class="code-insert" title="Insert at the cursor in the editor">Insert</button></div>` +
      `<pre class="hljs"><code class="language-${e(shown)}">${body}</code></pre></div>`
    );
  };
  return md;
}

const md = create();

/** Renders markdown to an HTML string that contains no raw HTML from the source. */
export function renderMarkdown(src: string): string {
  return md.render(src ?? '');
}

/** Escapes text for use in HTML. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
