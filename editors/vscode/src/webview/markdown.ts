// Safe markdown for model output. markdown-it (bundled by esbuild) with `html: false` escapes
// every raw HTML tag in the source, so `<script>` or `<img onerror>` from the model become text;
// its link validator refuses javascript:, vbscript:, file: and data: URLs. On top of that:
// images are never loaded (they would be remote resources) and are shown as their alt text, and
// only http(s) and mailto links stay links. The page's CSP (script-src with a nonce only) is the
// second fence: even a tag that slipped through could not run.
import MarkdownIt from 'markdown-it';

const SAFE_LINK = /^(https?:|mailto:)/i;

function create(): MarkdownIt {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: false });
  const baseValidate = md.validateLink.bind(md);
  md.validateLink = (url: string) => baseValidate(url) && SAFE_LINK.test(url.trim());
  md.renderer.rules.image = (tokens, idx) => {
    const t = tokens[idx];
    const alt = t.children ? md.renderer.renderInlineAsText(t.children, md.options, {}) : t.content;
    return `<span class="md-image">[image: ${md.utils.escapeHtml(alt)}]</span>`;
  };
  const defaultLinkOpen =
    md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    tokens[idx].attrSet('class', 'md-link');
    tokens[idx].attrSet('rel', 'noreferrer');
    return defaultLinkOpen(tokens, idx, options, env, self);
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
