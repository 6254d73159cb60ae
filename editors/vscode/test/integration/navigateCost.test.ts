// The header's tokens and cost after a navigate (issue 27): the chat page draws them from the
// state the server sends with the navigate (the branch's tokens and last-turn cost), never the
// values it held before. Real binary, fake LLM, priced model.
import { stub } from '../stub/register';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { describe, it } from 'node:test';
import type { PiLspApi } from '../../src/extension';
import type { SessionElement } from '../../src/sessionTree';
import type { DisplayState } from '../../src/protocol';
import { FakeLlm, FakeWebviewView, waitFor } from './helpers';
import { useExtensionWithFakeModel } from './start';

type TreeProvider<T> = { getChildren(e?: T): T[] | Promise<T[]> };

async function collect<T>(tree: TreeProvider<T>, parent?: T): Promise<T[]> {
  const out: T[] = [];
  for (const e of await tree.getChildren(parent)) out.push(e, ...(await collect(tree, e)));
  return out;
}

/** The numbers the header draws (webview/main.ts: cost, last turn's cost, tokens in and out). */
function header(s: DisplayState): { cost: number; turn: number; input: number; output: number } {
  const t = s.tokens;
  return {
    cost: (t?.cost as { total?: number } | undefined)?.total ?? 0,
    turn: (t?.turnCost as { total?: number } | undefined)?.total ?? 0,
    input: t?.input ?? 0,
    output: t?.output ?? 0,
  };
}

describe('header cost after a navigate', () => {
  let llm: FakeLlm;
  let api: PiLspApi;
  let view: FakeWebviewView;

  useExtensionWithFakeModel({
    prefix: 'navcost',
    until: 'snapshot',
    // A priced model, so that turns cost something.
    prepare: (_ws, fake) => {
      const priced = JSON.parse(fs.readFileSync(fake.modelsJson, 'utf8')) as { providers: Record<string, { models: Array<Record<string, unknown>> }> };
      for (const p of Object.values(priced.providers)) for (const m of p.models) m.cost = { input: 1000, output: 2000, cacheRead: 0, cacheWrite: 0 };
      fs.writeFileSync(fake.modelsJson, JSON.stringify(priced));
    },
  }, (s) => ({ llm, api, view } = s));

  it('shows the branch tokens and last-turn cost from the state, not the values before', async () => {
    const agent = api.manager.current();
    const idleWith = (text: string) =>
      agent.display.synced && agent.display.state.status === 'idle' && (agent.display.state.items ?? []).some((i) => i.kind === 'assistant' && i.text === text);
    const first = 'First answer.';
    const second = `Second answer. ${'a much longer one '.repeat(80)}`.trim();
    await llm.add({ text: first });
    view.receive({ type: 'send', text: 'first question', behavior: 'steer' });
    await waitFor('the first answer', () => idleWith(first) && header(agent.display.state).turn > 0);
    const h1 = header(agent.display.state);
    await llm.add({ text: second });
    view.receive({ type: 'send', text: 'second question', behavior: 'steer' });
    await waitFor('the second answer', () => idleWith(second) && header(agent.display.state).output > h1.output);
    await waitFor('the page to have the second turn', () => header(view.mirror).output === header(agent.display.state).output);
    const h2 = header(view.mirror);
    assert.ok(h2.turn > h1.turn && h2.output > h1.output && h2.cost > h1.cost, `before: ${JSON.stringify(h1)} then ${JSON.stringify(h2)}`);

    const tree = stub.control.treeProviders.get('piLsp.sessionTree') as TreeProvider<SessionElement>;
    await api.sessionTree.refresh();
    const entry = (await collect(tree)).find((e) => e.kind === 'entry' && e.node.role === 'assistant' && (e.node.preview ?? '').startsWith('First answer'));
    assert.ok(entry, 'the tree holds the first answer');
    await stub.commands.executeCommand('piLsp.tree.navigate', entry);
    await waitFor('the navigate in the state', () => !(agent.display.state.items ?? []).some((i) => i.text === second) && agent.display.synced);
    await waitFor('the page to follow', () => !(view.mirror.items ?? []).some((i) => i.text === second));
    // The page's header numbers are the state's: the branch's tokens and its last turn's cost,
    // with the whole file's cost (docs/protocol.md, "Display facts": Tokens).
    const page = header(view.mirror);
    assert.deepEqual(view.mirror.tokens, agent.display.state.tokens, 'the page holds the state tokens');
    assert.equal(page.output, h1.output, 'tokens out are the branch (first turn) ones');
    assert.equal(page.input, h1.input, 'tokens in are the branch (first turn) ones');
    assert.equal(page.turn, h1.turn, 'the last turn cost is the first turn');
    assert.notEqual(page.turn, h2.turn, 'not the last turn cost held before the navigate');
    assert.equal(page.cost, h2.cost, 'the session cost stays the whole file');
    // The status bar is drawn from the same state: its cost is the file's, not zero.
    assert.match(stub.control.statusBarText, /\$0\.\d{3}|\$\d+\.\d{2}/);
  });
});
