// Builds the extension (Node, CommonJS) and the chat webview (browser, IIFE); with --tests also
// the tests. --production minifies.
import * as esbuild from 'esbuild';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const production = process.argv.includes('--production');
const withTests = process.argv.includes('--tests');

const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning', target: 'es2022' };

const builds = [
  esbuild.build({
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'out/extension.js',
    platform: 'node',
    format: 'cjs',
    external: ['vscode'],
  }),
  esbuild.build({
    ...common,
    entryPoints: ['src/webview/main.ts'],
    outfile: 'out/webview.js',
    platform: 'browser',
    format: 'iife',
  }),
];

if (withTests) {
  const entries = [];
  for (const dir of ['unit', 'webview', 'integration', 'soak', 'e2e']) {
    for (const f of readdirSync(join('test', dir))) {
      if (f.endsWith('.test.ts')) entries.push(join('test', dir, f));
    }
  }
  builds.push(
    esbuild.build({
      ...common,
      sourcemap: true,
      entryPoints: entries,
      outdir: 'out/test',
      outbase: 'test',
      platform: 'node',
      format: 'cjs',
      // vscode is the stub injected at run time; the rest are real packages from node_modules.
      external: ['vscode', 'playwright-core', 'vscode-jsonrpc', 'markdown-it'],
    }),
  );
}

await Promise.all(builds);
