/** A step's `mcpServers` as a definition states them: what the schema and checkDefinition refuse, and what the view shows. */
import t from 'tap';
import { checkDefinition, workflowBody, workflowView } from '../../src/services/workflows/definition.js';
import type { WorkflowDefinition } from '../../src/domain/workflows.js';

function definition(server: Record<string, unknown>, extraStep: Record<string, unknown> = {}): unknown {
  return { slug: 'flow', name: 'Flow', steps: [{ id: 'main', agent: 'helper', mcpServers: [server], ...extraStep }] };
}

const ok = { name: 'files', url: 'https://mcp.example.com/mcp' };

/** The field an INVALID_REQUEST names, or null when the definition is accepted. */
function refusedField(raw: unknown, allowPrivateUrls = false): string | null {
  try {
    checkDefinition(workflowBody.parse(raw) as WorkflowDefinition, { allowPrivateUrls });
    return null;
  } catch (error) {
    return (error as { extra?: { field?: string } }).extra?.field ?? 'unknown';
  }
}

t.test('a server with headers, a timeout, allow and a per-tool risk is accepted', async (t) => {
  t.equal(refusedField(definition({ ...ok, headers: { authorization: 'Bearer x' }, timeoutMs: 5000, allow: ['read'], tools: { read: { risk: 'high' } } })), null);
});

t.test('a server URL outside the outbound URL policy is refused at definition time', async (t) => {
  t.equal(refusedField(definition({ ...ok, url: 'http://127.0.0.1:9/mcp' })), 'steps.0.mcpServers.0.url');
  t.equal(refusedField(definition({ ...ok, url: 'http://127.0.0.1:9/mcp' }), true), null, 'private URLs pass when the operator allows them');
  t.equal(refusedField(definition({ ...ok, url: 'https://169.254.169.254/mcp' }), true), 'steps.0.mcpServers.0.url', 'cloud metadata never passes');
});

t.test('a server name used twice in a step is refused', async (t) => {
  t.equal(refusedField({ slug: 'flow', name: 'Flow', steps: [{ id: 'main', agent: 'helper', mcpServers: [ok, { ...ok, name: 'FILES' }] }] }), 'steps.0.mcpServers.1.name');
});

t.test('a server name with an underscore is refused, so <server>__<tool> splits one way', async (t) => {
  t.equal(refusedField(definition({ ...ok, name: 'my_files' })), 'steps.0.mcpServers.0.name');
});

t.test('headers the transport sets are refused', async (t) => {
  t.equal(refusedField(definition({ ...ok, headers: { 'Mcp-Session-Id': 'abc' } })), 'steps.0.mcpServers.0.headers.Mcp-Session-Id');
  t.equal(refusedField(definition({ ...ok, headers: { 'x-key': 'line\nbreak' } })), 'steps.0.mcpServers.0.headers.x-key');
});

t.test('a risk override for a tool that allow leaves out is refused', async (t) => {
  t.equal(refusedField(definition({ ...ok, allow: ['read'], tools: { write: { risk: 'low' } } })), 'steps.0.mcpServers.0.tools.write');
});

t.test('an unknown risk and an unknown field are refused', async (t) => {
  t.equal(refusedField(definition({ ...ok, tools: { read: { risk: 'extreme' } } })), 'steps.0.mcpServers.0.tools.read.risk');
  t.equal(refusedField(definition({ ...ok, transport: 'sse' })), 'steps.0.mcpServers.0.transport');
});

t.test('counts are bounded: at most 8 servers a step, 64 allowed tools, 16 headers', async (t) => {
  const servers = Array.from({ length: 9 }, (_, i) => ({ ...ok, name: `s${i}` }));
  t.equal(refusedField({ slug: 'flow', name: 'Flow', steps: [{ id: 'main', agent: 'helper', mcpServers: servers }] }), 'steps.0.mcpServers');
  t.equal(refusedField(definition({ ...ok, allow: Array.from({ length: 65 }, (_, i) => `t${i}`) })), 'steps.0.mcpServers.0.allow');
  const headers = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`x-h${i}`, 'v']));
  t.equal(refusedField(definition({ ...ok, headers })), 'steps.0.mcpServers.0.headers');
});

t.test('an HTTP tool named like one of the step\'s MCP tools is refused', async (t) => {
  const tools = [{ name: 'files__read', url: 'https://tools.example.com/read', risk: 'low' }];
  t.equal(refusedField(definition(ok, { tools })), 'steps.0.tools.0.name');
});

t.test('the view names the headers but never shows their values', async (t) => {
  const parsed = workflowBody.parse(definition({ ...ok, headers: { authorization: 'Bearer secret' } })) as WorkflowDefinition;
  const view = workflowView(parsed, 'account', null);
  t.same(view.steps[0]!.mcpServers, [{ name: 'files', url: ok.url, headers: ['authorization'], timeoutMs: 30000, allow: null, tools: {} }]);
  t.notMatch(JSON.stringify(view), 'secret');
});
