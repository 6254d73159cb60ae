import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderMarkdown } from '../../src/webview/markdown';

const TAGS = new Set([
  'p', 'em', 'strong', 'code', 'pre', 'a', 'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'blockquote', 'hr', 'br', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span', 's', 'div', 'button',
]);
const ATTRS = new Set(['href', 'class', 'rel', 'start', 'style', 'title', 'data-path', 'data-line']);
const TAG_RE = /<(\/?)([a-zA-Z0-9]+)((?:\s+[a-zA-Z-]+="[^"<>]*")*)\s*\/?>/y;

/** Checks that every tag in `html` is an allowed element with allowed attributes and safe links. */
function assertSafe(html: string, src: string): void {
  for (let i = html.indexOf('<'); i >= 0; i = html.indexOf('<', i + 1)) {
    TAG_RE.lastIndex = i;
    const m = TAG_RE.exec(html);
    assert.ok(m, `raw '<' at ${i} in output of ${JSON.stringify(src)}: ${html.slice(i, i + 40)}`);
    assert.ok(TAGS.has(m[2].toLowerCase()), `tag <${m[2]}> from ${JSON.stringify(src)}`);
    for (const a of m[3].matchAll(/([a-zA-Z-]+)="([^"]*)"/g)) {
      assert.ok(ATTRS.has(a[1].toLowerCase()), `attribute ${a[1]} from ${JSON.stringify(src)}`);
      if (a[1] === 'href') assert.match(a[2], /^(https?:|mailto:|#$)/i, `href ${a[2]} from ${JSON.stringify(src)}`);
      if (a[1] === 'style') assert.match(a[2], /^text-align:(left|right|center)$/, `style ${a[2]}`);
    }
  }
}

describe('renderMarkdown', () => {
  it('links files: relative links, inline code and path:line in text', () => {
    const html = renderMarkdown('See [the helper](src/util.ts#L3), `calc.go` and editors/vscode/src/agent.ts:42, not e.g. or 1.5.');
    assert.match(html, /<a href="#" class="file-link" data-path="src\/util.ts" data-line="3">the helper<\/a>/);
    assert.match(html, /<a class="file-link" href="#" data-path="calc.go" title="Open calc.go"><code>calc.go<\/code><\/a>/);
    assert.match(html, /data-path="editors\/vscode\/src\/agent.ts" data-line="42"/);
    assert.doesNotMatch(html, /data-path="e.g"/);
    assertSafe(html, 'links');
  });

  it('renders ordinary markdown', () => {
    const html = renderMarkdown('# Title\n\nSome **bold** and `code`.\n\n```go\nfmt.Println("<b>")\n```\n\n- a\n- [link](https://example.com)');
    assert.match(html, /<h1>Title<\/h1>/);
    assert.match(html, /<strong>bold<\/strong>/);
    assert.match(html, /<code>code<\/code>/);
    assert.match(html, /<span class="hljs-string">&quot;&lt;b&gt;&quot;<\/span>/);
    assert.match(html, /<span class="code-lang">go<\/span><button class="code-copy"/);
    assert.match(html, /<a href="https:\/\/example\.com" class="md-link" rel="noreferrer">link<\/a>/);
    assertSafe(html, 'ordinary');
  });

  const hostile: Array<[string, RegExp]> = [
    ['<script>window.__pwned=1</script>', /&lt;script&gt;window.__pwned=1&lt;\/script&gt;/],
    ['<img src=x onerror="window.__pwned=2">', /&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;/],
    ['[click](javascript:alert(1))', /\[click\]\(javascript:alert\(1\)\)/],
    ['[x](JaVaScRiPt:alert(1))', /\[x\]/],
    ['[x](data:text/html;base64,PHNjcmlwdD4=)', /\[x\]/],
    ['[x](vbscript:msgbox)', /\[x\]/],
    ['[x](file:///etc/passwd)', /\[x\]/],
    ['![logo](https://evil.example/track.png)', /<span class="md-image">\[image: logo\]<\/span>/],
    ['<iframe src="https://evil.example"></iframe>', /&lt;iframe/],
    ['<a href="javascript:alert(1)">x</a>', /&lt;a href=/],
    ['<svg onload=alert(1)>', /&lt;svg onload=alert\(1\)&gt;/],
    ['`<script>`', /<code>&lt;script&gt;<\/code>/],
    ['<https://example.com>', /href="https:\/\/example\.com"/],
    ['<javascript:alert(1)>', /&lt;javascript:alert\(1\)&gt;/],
    ['[a](https://x.example/"onmouseover="alert(1))', /href="https:\/\/x\.example\/%22onmouseover=%22alert\(1\)"/],
  ];
  for (const [src, want] of hostile) {
    it(`neutralizes ${src}`, () => {
      const html = renderMarkdown(src);
      assert.match(html, want);
      assertSafe(html, src);
    });
  }

  it('keeps every random mix of hostile fragments inert', () => {
    const frags = [
      '<script>', '</script>', '<img src=x onerror=alert(1)>', '"', "'", '`', '```', '\n', '\n\n', '[', ']', '(', ')',
      'javascript:', 'https://a.example/', '<', '>', '&', '&lt;', '*', '_', '#', '- ', '1. ', '![', '<style>',
      'onload=', '<a href="', '|', '---', '\\', '<!--', '-->', '<![CDATA[', 'data:', ' ', 'text',
    ];
    let seed = 0x9e3779b9;
    const rand = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 0x100000000;
    };
    for (let n = 0; n < 2000; n++) {
      let src = '';
      const len = 1 + Math.floor(rand() * 25);
      for (let i = 0; i < len; i++) src += frags[Math.floor(rand() * frags.length)];
      assertSafe(renderMarkdown(src), src);
    }
  });
});
