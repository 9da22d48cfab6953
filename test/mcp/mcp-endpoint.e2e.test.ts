/**
 * `/mcp` end to end with the MCP SDK's own client over Streamable HTTP against a spawned Baton:
 * key authentication, tools filtered by permission, orchestrate run to its result, a workflow
 * run to its answer and one paused for approval (reported, then finished after approving), and
 * execution status.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import t from 'tap';
import { registerAgents } from '../helpers/agents.js';
import { api, createAccountWithKey, startServer } from '../helpers/server.js';
import { setupWorkflow, startToolServer } from '../workflows/fixtures.js';

const server = await startServer(t, { mode: 'embedded' });
const tools = await startToolServer();
t.teardown(() => tools.close());

async function connect(t: { teardown(fn: () => unknown): void }, key: string): Promise<Client> {
  const client = new Client({ name: 'baton-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  t.teardown(() => client.close());
  return client;
}

interface ToolCall {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: Array<{ type: string; text?: string }>;
}

t.test('orchestrate runs the selected agent and returns its result; execution_status reads it back', async (t) => {
  const { key } = await createAccountWithKey(server, 'BUSINESS', ['*']);
  await registerAgents(server, key, [{
    info: { id: 'mcp-invoices', name: 'Invoice Parser', description: 'Reads supplier invoices and returns line items and totals.', capabilities: ['invoice-extraction'] },
    output: () => ({ total: 42 }),
  }], t.teardown.bind(t));
  const client = await connect(t, key);
  t.equal(client.getServerVersion()?.name, 'baton');

  const called = await client.callTool({ name: 'orchestrate', arguments: { query: 'Extract the line items and totals from this supplier invoice' } }) as ToolCall;
  t.equal(called.isError, false);
  const view = called.structuredContent!;
  t.equal(view.status, 'COMPLETED');
  t.match(JSON.stringify(view.result), /42/);
  t.same(JSON.parse(called.content[0]!.text!), view, 'the text content carries the same result');

  const status = await client.callTool({ name: 'execution_status', arguments: { executionId: view.id } }) as ToolCall;
  t.equal(status.structuredContent?.status, 'COMPLETED');

  const bad = await client.callTool({ name: 'orchestrate', arguments: { query: '' } }) as ToolCall;
  t.equal(bad.isError, true);
  t.equal(bad.structuredContent?.error, 'INVALID_REQUEST');
  t.equal(bad.structuredContent?.field, 'query');

  const missing = await client.callTool({ name: 'execution_status', arguments: { executionId: 'exec_nope' } }) as ToolCall;
  t.equal(missing.isError, true);
  t.equal(missing.structuredContent?.error, 'EXECUTION_NOT_FOUND');
});

t.test('a workflow is a tool: it runs to its answer, or reports the pause for approval', async (t) => {
  const low = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'low' });
  const client = await connect(t, low.key);
  const listed = await client.listTools();
  const names = listed.tools.map((tool) => tool.name);
  t.ok(names.includes(`workflow_${low.slug}`), 'the workflow is listed');
  t.ok(names.includes('orchestrate') && names.includes('execution_status'));
  const workflowTool = listed.tools.find((tool) => tool.name === `workflow_${low.slug}`)!;
  t.same(workflowTool.inputSchema.required, ['task']);

  const done = await client.callTool({ name: `workflow_${low.slug}`, arguments: { task: 'what is the weather' } }) as ToolCall;
  t.equal(done.isError, false);
  t.equal(done.structuredContent?.status, 'completed');
  t.match(done.structuredContent?.final_answer, /^answer: /);

  const high = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'high' });
  const highClient = await connect(t, high.key);
  const paused = await highClient.callTool({ name: `workflow_${high.slug}`, arguments: { task: 'what is the weather' } }) as ToolCall;
  t.equal(paused.isError, false);
  const pause = paused.structuredContent!;
  t.equal(pause.status, 'waiting_for_approval');
  t.match(pause.waiting_for_approval, /^apr_/);
  t.match(pause.message, /approve/);
  const id = pause.execution_id as string;
  const approved = await api(server, 'POST', `/v1/workflows/execute/${id}/approve/${pause.waiting_for_approval as string}`, { key: high.key, body: {} });
  t.equal(approved.status, 200);
  let status: ToolCall;
  do {
    status = await highClient.callTool({ name: 'execution_status', arguments: { executionId: id } }) as ToolCall;
  } while (status.structuredContent?.status === 'running' && (await new Promise((r) => setTimeout(r, 50)), true));
  t.equal(status.structuredContent?.status, 'completed');
});

t.test('tools follow the key permissions, and the endpoint needs a key', async (t) => {
  const { key } = await createAccountWithKey(server, 'DEVELOPER', ['executions:read']);
  const client = await connect(t, key);
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  t.same(names, ['execution_status']);
  const refused = await client.callTool({ name: 'orchestrate', arguments: { query: 'anything at all' } }) as ToolCall;
  t.equal(refused.isError, true);
  t.equal(refused.structuredContent?.error, 'FORBIDDEN');
  t.equal(refused.structuredContent?.requiredPermission, 'orchestrate');
  await t.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /Unknown tool/);

  const anonymous = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  t.equal(anonymous.status, 401);
  const get = await fetch(`${server.url}/mcp`, { headers: { authorization: `Bearer ${key}` } });
  t.equal(get.status, 405);
  t.equal(get.headers.get('allow'), 'POST');
});
