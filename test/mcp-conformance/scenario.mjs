// Writes the mcp.json and the fake model's script of one conformance
// scenario: node scenario.mjs <url> <scenario> <mcp.json> <script.json>.
// Like the suite's own everything-client, it knows per scenario which tool
// to call and which credentials to configure.
import { writeFileSync } from 'node:fs';

const [url, scenario, mcpPath, scriptPath] = process.argv.slice(2);
const ctx = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};

const server = { type: scenario === 'sse-retry' ? 'http' : 'http', url };
if (scenario === 'auth/basic-cimd') {
  server.oauth = { clientMetadataUrl: 'https://conformance-test.local/client-metadata.json' };
}
if (ctx.client_id && scenario !== 'auth/cross-app-access-complete-flow') {
  server.oauth = { clientId: ctx.client_id };
  if (ctx.client_secret) server.oauth.clientSecret = ctx.client_secret;
  if (scenario.startsWith('auth/client-credentials')) server.oauth.grantType = 'client_credentials';
}
writeFileSync(mcpPath, JSON.stringify({ mcpServers: { conf: server } }, null, 2));

const tools = {
  tools_call: ['add_numbers', { a: 2, b: 3 }],
  'elicitation-sep1034-client-defaults': ['test_client_elicitation_defaults', {}],
  'sse-retry': ['test_reconnection', {}],
};
let call = tools[scenario];
if (!call && scenario.startsWith('auth/')) call = ['test-tool', {}];
const script = [];
if (call) {
  const name = `mcp__conf__${call[0]}`;
  script.push({ match: `"${name}"`, toolCalls: [{ id: 'call_1', name, arguments: call[1] }] });
}
script.push({ repeat: true, text: 'Done.' });
writeFileSync(scriptPath, JSON.stringify(script));
