/**
 * MCP tools in workflows end to end: a spawned Baton runs workflows whose step names a real MCP
 * server (the SDK's McpServer over Streamable HTTP on 127.0.0.1). The agent sees the server's
 * tools with their risk; a read-only tool runs at once, a destructive one waits for approval, a
 * definition's override changes the risk, and a server that is down, slow or failing gives the
 * agent a tool error while the run goes on.
 */
import t from 'tap';
import { freePort, api, createAccountWithKey, startServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';
import { executeBody, registerAgents, runWorkflow, toolUsingAgent, waitForStatus } from './fixtures.js';
import { startMcpServer } from './mcp-server.js';

const server = await startServer(t, { mode: 'embedded' });
const mcp = await startMcpServer();
t.teardown(() => mcp.close());

let counter = 0;

/** A fresh account, an agent calling `tool` with `input` once, and a workflow whose step names `servers`. */
async function setup(t: { teardown(fn: () => unknown): void }, tool: string, input: Record<string, unknown>, servers: Array<Record<string, unknown>>) {
  const { key } = await createAccountWithKey(server, 'BUSINESS', ['*']);
  counter += 1;
  const [agent] = await registerAgents(server, key, [toolUsingAgent(`mcp-agent-${counter}`, tool, input)], t.teardown.bind(t));
  const slug = `mcp-flow-${counter}`;
  const res = await api(server, 'POST', '/v1/workflows', { key, body: { slug, name: `MCP flow ${counter}`, steps: [{ id: 'main', agent: agent!.info.id, mcpServers: servers }] } });
  if (res.status !== 201) throw new Error(`workflow creation failed: ${res.status} ${res.text}`);
  return { key, slug, agent: agent! };
}

const files = (extra: Record<string, unknown> = {}) => ({ name: 'files', url: mcp.url, headers: { 'x-api-key': 'secret-1' }, ...extra });

t.test('the agent is offered the server\'s tools with risk from their annotations; a read-only tool runs without approval', async (t) => {
  const { key, slug, agent } = await setup(t, 'files__read_file', { path: 'a.txt' }, [files()]);
  const listsBefore = mcp.lists;
  const id = await runWorkflow(server, key, slug);
  const done = await waitForStatus(server, key, id, ['completed', 'failed']);
  t.equal(done.status, 'completed');
  t.equal(done.final_answer, `answer: ${JSON.stringify({ id: 'call_1', name: 'files__read_file', result: 'contents of a.txt' })}`);
  t.same(mcp.calls.at(-1), { name: 'read_file', args: { path: 'a.txt' } });
  t.equal(mcp.lastHeaders['x-api-key'], 'secret-1', 'the definition\'s headers are sent');
  const executes = agent.requests.filter((r) => r.path === '/execute');
  const offered = (executes[0]!.body as { input: { context: { tools: Array<{ name: string; risk: string; inputSchema: { properties?: object } }> } } }).input.context.tools;
  t.same(offered.map((tool) => [tool.name, tool.risk]), [
    ['files__read_file', 'low'],
    ['files__delete_file', 'high'],
    ['files__slow', 'medium'],
    ['files__broken', 'medium'],
  ]);
  t.ok(offered[0]!.inputSchema.properties !== undefined && 'path' in offered[0]!.inputSchema.properties, 'the tool\'s input schema is passed on');
  t.equal(executes.length, 2, 'two agent rounds');
  t.equal(mcp.lists - listsBefore, 1, 'the step\'s tools are listed once, not once per round');
  const view = await api(server, 'GET', `/v1/workflows/${slug}`, { key });
  const shown = (view.body.steps as Array<{ mcpServers: Array<Record<string, unknown>> }>)[0]!.mcpServers[0]!;
  t.same(shown.headers, ['x-api-key'], 'header names are shown, never their values');
  t.notMatch(view.text, 'secret-1');
});

t.test('a destructive tool waits for approval and runs once approved', async (t) => {
  const { key, slug } = await setup(t, 'files__delete_file', { path: 'b.txt' }, [files()]);
  const id = await runWorkflow(server, key, slug);
  const sse = openSse(server.port, `/api/v1/workflows/execute/${id}/stream`, key);
  await sse.waitFor((events) => events.some((e) => e.event === 'approval_request'));
  const request = sse.events.find((e) => e.event === 'approval_request')!;
  t.equal(request.data.tool_name, 'files__delete_file');
  t.same(request.data.tool_input, { path: 'b.txt' });
  t.notOk(mcp.calls.some((c) => c.name === 'delete_file' && c.args.path === 'b.txt'), 'nothing deleted before the decision');
  const approved = await api(server, 'POST', `/v1/workflows/execute/${id}/approve/${request.data.approval_id as string}`, { key, body: {} });
  t.equal(approved.status, 200);
  const done = await waitForStatus(server, key, id, ['completed', 'failed']);
  t.equal(done.status, 'completed');
  t.match(done.final_answer, /deleted b\.txt/);
  t.same(mcp.calls.filter((c) => c.name === 'delete_file' && c.args.path === 'b.txt').length, 1);
});

t.test('a per-tool risk in the definition wins over the annotations', async (t) => {
  const { key, slug, agent } = await setup(t, 'files__delete_file', { path: 'c.txt' }, [files({ tools: { delete_file: { risk: 'low' } }, allow: ['delete_file'] })]);
  const id = await runWorkflow(server, key, slug);
  const done = await waitForStatus(server, key, id, ['completed', 'failed']);
  t.equal(done.status, 'completed', 'no approval was needed');
  t.match(done.final_answer, /deleted c\.txt/);
  const offered = (executeBody(agent.requests.find((r) => r.path === '/execute')!).input.context as unknown as { tools: Array<{ name: string; risk: string }> }).tools;
  t.same(offered.map((tool) => [tool.name, tool.risk]), [['files__delete_file', 'low']], '`allow` keeps only the named tool');
});

t.test('a server that is down gives the agent a tool error and the run completes', async (t) => {
  const closed = await freePort();
  const { key, slug } = await setup(t, 'gone__read_file', { path: 'd.txt' }, [{ name: 'gone', url: `http://127.0.0.1:${closed}/mcp`, timeoutMs: 2000 }]);
  const id = await runWorkflow(server, key, slug);
  const done = await waitForStatus(server, key, id, ['completed', 'failed']);
  t.equal(done.status, 'completed');
  t.match(done.final_answer, /"error":"MCP server 'gone' is unavailable: MCP server unreachable \(ECONNREFUSED\)"/);
});

t.test('a slow tool times out and a tool reporting isError fails the call; both reach the agent as errors', async (t) => {
  const slow = await setup(t, 'files__slow', { ms: 3000 }, [files({ timeoutMs: 500 })]);
  const slowRun = await runWorkflow(server, slow.key, slow.slug);
  const slowDone = await waitForStatus(server, slow.key, slowRun, ['completed', 'failed']);
  t.equal(slowDone.status, 'completed');
  t.match(slowDone.final_answer, /"error":"timeout after 500 ms"/);

  const broken = await setup(t, 'files__broken', {}, [files()]);
  const brokenRun = await runWorkflow(server, broken.key, broken.slug);
  const brokenDone = await waitForStatus(server, broken.key, brokenRun, ['completed', 'failed']);
  t.equal(brokenDone.status, 'completed');
  t.match(brokenDone.final_answer, /"error":"tool reported an error: disk on fire"/);
});

t.test('an MCP tool the server does not list is an unknown tool', async (t) => {
  const { key, slug } = await setup(t, 'files__format_disk', {}, [files()]);
  const id = await runWorkflow(server, key, slug);
  const done = await waitForStatus(server, key, id, ['completed', 'failed']);
  t.match(done.final_answer, /"error":"unknown tool 'files__format_disk'"/);
});
