import assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { expandPath, launchConfig } from '../../src/config';

describe('launchConfig', () => {
  it('defaults to pi-lsp on PATH and keeps the environment', () => {
    const c = launchConfig({}, '/w', { PATH: '/bin', HOME: '/h' });
    assert.equal(c.command, 'pi-lsp');
    assert.equal(c.env.PATH, '/bin');
    assert.equal(c.model, undefined);
    assert.equal('PI_LSP_SESSIONS' in c.env, false);
  });
  it('applies path, model, env and sessionsDir', () => {
    const c = launchConfig(
      { path: './bin/pi-lsp', model: ' fake/m1 ', env: { PI_LSP_MODELS: '${workspaceFolder}/models.json', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1', GONE: null }, sessionsDir: '~/s' },
      '/w',
      { GONE: 'x' },
    );
    assert.equal(c.command, '/w/bin/pi-lsp');
    assert.equal(c.model, 'fake/m1');
    assert.equal(c.env.PI_LSP_MODELS, '/w/models.json');
    assert.equal(c.env.OPENAI_BASE_URL, 'http://127.0.0.1:1/v1');
    assert.equal('GONE' in c.env, false);
    assert.equal(c.env.PI_LSP_SESSIONS, path.join(os.homedir(), 's'));
  });
  it('expandPath leaves a bare command alone', () => {
    assert.equal(expandPath('pi-lsp', '/w'), 'pi-lsp');
    assert.equal(expandPath('/usr/bin/pi-lsp', '/w'), '/usr/bin/pi-lsp');
    assert.equal(expandPath('${workspaceFolder}/x', '/w'), '/w/x');
  });
});
