/**
 * Workflows end to end over real sockets (embedded server): definitions, the agent loop with a
 * local tool server, the SSE stream (order, replay, resume, fan-out), approvals and cancel.
 */
import t from 'tap';
import { api, createAccountWithKey, startServer } from '../helpers/server.js';
import { openSse, type ReceivedEvent } from '../helpers/sse.js';
import { executeBody, registerAgents, runWorkflow, setupWorkflow, startToolServer, toolUsingAgent, waitForStatus } from './fixtures.js';

const server = await startServer(t, { mode: 'embedded' });
const tools = await startToolServer();
t.teardown(() => tools.close());

const streamPath = (id: string): string => `/api/v1/workflows/execute/${id}/stream`;
const types = (events: readonly ReceivedEvent[]): string[] => events.map((e) => e.event);
const hasDone = (events: readonly ReceivedEvent[]): boolean => events.some((e) => e.event === 'done');

async function fullStream(key: string, id: string, headers: Record<string, string> = {}): Promise<ReceivedEvent[]> {
  const sse = openSse(server.port, streamPath(id), key, headers);
  await sse.waitFor(hasDone);
  await sse.ended;
  return sse.events;
}

t.test('a run answers at once with the spec fields and a stream URL', async (t) => {
  const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t));
  const res = await api(server, 'POST', `/v1/workflows/${slug}/run`, { key, body: { task: 'hello', metadata: { conversation_id: 'conv-1' } } });
  t.equal(res.status, 200);
  const id = res.body.execution_id as string;
  t.match(id, /^exec_/);
  t.equal(res.body.status, 'running');
  t.equal(res.body.workflow_slug, slug);
  t.equal(res.body.workflow_name, res.body.workflow_name);
  t.equal(res.body.stream_url, `/api/v1/workflows/execute/${id}/stream`);
  t.equal(res.body.conversation_id, 'conv-1');
  t.ok(!Number.isNaN(Date.parse(res.body.created_at as string)));
  const done = await waitForStatus(server, key, id, ['completed']);
  t.match(done.final_answer, /^answer: /);
});

t.test('a low-risk tool call streams tool_executing, tool_result, chunk and done with ids from 1', async (t) => {
  const { key, slug, agent } = await setupWorkflow(server, tools, t.teardown.bind(t));
  const id = await runWorkflow(server, key, slug);
  const events = await fullStream(key, id);
  t.same(types(events), ['tool_executing', 'tool_result', 'chunk', 'done']);
  t.same(events.map((e) => e.id), [1, 2, 3, 4]);
  t.match(events[0]!.data, { tool_name: 'lookup', tool_input: { q: 'weather' } });
  t.match(events[1]!.data, { tool_name: 'lookup', result: { echoed: { q: 'weather' }, tool: 'lookup' } });
  const expected = `answer: ${JSON.stringify({ id: 'call_1', name: 'lookup', result: { echoed: { q: 'weather' }, tool: 'lookup' } })}`;
  t.equal(events[2]!.data.content, expected);
  t.same(events[3]!.data, { execution_id: id, status: 'completed', final_answer: expected });
  const second = executeBody(agent.requests.filter((r) => r.path === '/execute')[1]!);
  t.equal(second.input.prompt, 'what is the weather');
  t.same(second.input.context.toolResults, [{ id: 'call_1', name: 'lookup', result: { echoed: { q: 'weather' }, tool: 'lookup' } }]);
  t.equal(second.input.context.history.length, 1, 'the round is in history');
  const first = agent.requests.find((r) => r.path === '/execute')!.body as { input: { context: { tools: unknown[] } } };
  t.same(first.input.context.tools, [{ name: 'lookup', description: 'looks things up', inputSchema: { type: 'object' }, risk: 'low' }]);
});

t.test('a high-risk tool waits for approval; approving runs it and the workflow finishes', async (t) => {
  const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'high' });
  const before = tools.calls.length;
  const id = await runWorkflow(server, key, slug);
  const sse = openSse(server.port, streamPath(id), key);
  await sse.waitFor((events) => events.some((e) => e.event === 'approval_request'));
  const request = sse.events[0]!;
  t.equal(request.event, 'approval_request');
  t.match(request.data.approval_id, /^apr_/);
  t.same(request.data.tool_input, { q: 'weather' });
  t.equal(request.data.tool_name, 'lookup');
  t.equal(tools.calls.length, before, 'the tool has not run yet');
  const pending = await api(server, 'GET', '/v1/approvals?status=pending', { key });
  t.same((pending.body.approvals as Array<Record<string, unknown>>).map((a) => a.approval_id), [request.data.approval_id]);
  const approved = await api(server, 'POST', `/v1/workflows/execute/${id}/approve/${request.data.approval_id as string}`, { key, body: { reason: 'fine' } });
  t.equal(approved.status, 200);
  t.equal(approved.body.status, 'approved');
  await sse.waitFor(hasDone);
  t.same(types(sse.events), ['approval_request', 'approval_resolved', 'tool_executing', 'tool_result', 'chunk', 'done']);
  t.same(sse.events[1]!.data, { approval_id: request.data.approval_id, decision: 'approved', reason: 'fine' });
  t.equal(tools.calls.length, before + 1);
  t.equal(sse.events.at(-1)!.data.status, 'completed');
  const again = await api(server, 'POST', `/v1/workflows/execute/${id}/reject/${request.data.approval_id as string}`, { key });
  t.equal(again.status, 409, 'a second decision is refused');
  t.equal(again.body.error, 'APPROVAL_ALREADY_DECIDED');
});

t.test('rejecting skips the tool and tells the agent why', async (t) => {
  const { key, slug, agent } = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'high' });
  const before = tools.calls.length;
  const id = await runWorkflow(server, key, slug);
  const sse = openSse(server.port, streamPath(id), key);
  await sse.waitFor((events) => events.length >= 1);
  const approvalId = sse.events[0]!.data.approval_id as string;
  const rejected = await api(server, 'POST', `/v1/workflows/execute/${id}/reject/${approvalId}`, { key, body: { reason: 'too risky' } });
  t.equal(rejected.status, 200);
  await sse.waitFor(hasDone);
  t.same(types(sse.events), ['approval_request', 'approval_resolved', 'chunk', 'done']);
  t.same(sse.events[1]!.data, { approval_id: approvalId, decision: 'rejected', reason: 'too risky' });
  t.equal(tools.calls.length, before, 'the tool never ran');
  const second = executeBody(agent.requests.filter((r) => r.path === '/execute')[1]!);
  t.same(second.input.context.toolResults, [{ id: 'call_1', name: 'lookup', error: 'rejected: too risky' }]);
});

t.test('an approval with no decision expires and the agent is told (reject policy)', async (t) => {
  const { key, slug, agent } = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'high', extra: { approvalTimeoutMs: 300 } });
  const id = await runWorkflow(server, key, slug);
  const events = await fullStream(key, id);
  t.same(types(events), ['approval_request', 'approval_resolved', 'chunk', 'done']);
  t.equal(events[1]!.data.decision, 'expired');
  t.equal(events.at(-1)!.data.status, 'completed');
  const second = executeBody(agent.requests.filter((r) => r.path === '/execute')[1]!);
  t.same(second.input.context.toolResults, [{ id: 'call_1', name: 'lookup', error: 'expired' }]);
  const late = await api(server, 'POST', `/v1/workflows/execute/${id}/approve/${events[0]!.data.approval_id as string}`, { key });
  t.equal(late.status, 409, 'an expired approval cannot be decided');
});

t.test('an expired approval fails the run under the fail policy', async (t) => {
  const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'high', extra: { approvalTimeoutMs: 300, onApprovalTimeout: 'fail' } });
  const id = await runWorkflow(server, key, slug);
  const events = await fullStream(key, id);
  t.same(types(events), ['approval_request', 'approval_resolved', 'error', 'done']);
  t.equal(events[2]!.data.code, 'APPROVAL_EXPIRED');
  t.same(events[3]!.data, { execution_id: id, status: 'failed', final_answer: null });
  const status = await api(server, 'GET', `/v1/workflows/execute/${id}`, { key });
  t.equal(status.body.status, 'failed');
});

t.test('decisions on unknown approvals, or another account’s, are 404', async (t) => {
  const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'high' });
  const id = await runWorkflow(server, key, slug);
  const sse = openSse(server.port, streamPath(id), key);
  await sse.waitFor((events) => events.length >= 1);
  const approvalId = sse.events[0]!.data.approval_id as string;
  const unknown = await api(server, 'POST', `/v1/workflows/execute/${id}/approve/apr_000000000000000000000000`, { key });
  t.equal(unknown.status, 404);
  t.equal(unknown.body.error, 'APPROVAL_NOT_FOUND');
  const other = await createAccountWithKey(server);
  const foreign = await api(server, 'POST', `/v1/workflows/execute/${id}/approve/${approvalId}`, { key: other.key });
  t.equal(foreign.status, 404);
  t.equal(foreign.body.error, 'APPROVAL_NOT_FOUND');
  const foreignStream = await api(server, 'GET', streamPath(id), { key: other.key });
  t.equal(foreignStream.status, 404, 'nor can it read the stream');
  await api(server, 'POST', `/v1/workflows/execute/${id}/cancel`, { key });
  sse.close();
});

t.test('a subscriber that connects after the end gets every event again, then the stream closes', async (t) => {
  const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t));
  const id = await runWorkflow(server, key, slug);
  await waitForStatus(server, key, id, ['completed']);
  const events = await fullStream(key, id);
  t.same(types(events), ['tool_executing', 'tool_result', 'chunk', 'done']);
  t.same(events.map((e) => e.id), [1, 2, 3, 4]);
});

t.test('Last-Event-ID resumes after that event without duplicates', async (t) => {
  const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t));
  const id = await runWorkflow(server, key, slug);
  await waitForStatus(server, key, id, ['completed']);
  const resumed = await fullStream(key, id, { 'last-event-id': '2' });
  t.same(resumed.map((e) => e.id), [3, 4]);
  t.same(types(resumed), ['chunk', 'done']);
});

t.test('two subscribers of one run receive the same events', async (t) => {
  const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'high' });
  const id = await runWorkflow(server, key, slug);
  const a = openSse(server.port, streamPath(id), key);
  const b = openSse(server.port, streamPath(id), key);
  await a.waitFor((events) => events.length >= 1);
  await b.waitFor((events) => events.length >= 1);
  await api(server, 'POST', `/v1/workflows/execute/${id}/approve/${a.events[0]!.data.approval_id as string}`, { key });
  await Promise.all([a.waitFor(hasDone), b.waitFor(hasDone)]);
  t.same(b.events, a.events);
  t.equal(a.events.length, 6);
});

t.test('an agent answering as an event stream has its chunks forwarded live', async (t) => {
  const { key, accountId } = await createAccountWithKey(server, 'BUSINESS');
  void accountId;
  const [agent] = await registerAgents(server, key, [{ info: { id: 'streamer-1', name: 'Streamer', description: 'streams' }, stream: { chunks: ['Hel', 'lo ', 'world'], chunkDelayMs: 20 } }], t.teardown.bind(t));
  const created = await api(server, 'POST', '/v1/workflows', { key, body: { slug: 'streamed', name: 'Streamed', steps: [{ id: 's', agent: agent!.info.id }] } });
  t.equal(created.status, 201);
  const id = await runWorkflow(server, key, 'streamed');
  const events = await fullStream(key, id);
  t.same(types(events), ['chunk', 'chunk', 'chunk', 'done']);
  t.same(events.slice(0, 3).map((e) => e.data.content), ['Hel', 'lo ', 'world']);
  t.equal(events[3]!.data.final_answer, 'Hello world');
});

t.test('two steps: the second agent gets the first answer in its prompt', async (t) => {
  const { key } = await createAccountWithKey(server, 'BUSINESS');
  const [first, second] = await registerAgents(
    server,
    key,
    [
      { info: { id: 'step-one', name: 'One', description: 'one' }, output: { answer: 'draft' } },
      { info: { id: 'step-two', name: 'Two', description: 'two' }, output: (r) => ({ answer: `final of ${executeBody(r).input.prompt.split('\n').at(-1)}` }) },
    ],
    t.teardown.bind(t),
  );
  await api(server, 'POST', '/v1/workflows', { key, body: { slug: 'two-steps', name: 'Two', steps: [{ id: 'a', agent: first!.info.id }, { id: 'b', agent: second!.info.id }] } });
  const id = await runWorkflow(server, key, 'two-steps', 'write it');
  const events = await fullStream(key, id);
  t.same(types(events), ['chunk', 'chunk', 'done']);
  t.same(events.map((e) => e.data.step_id ?? null), ['a', 'b', null]);
  t.equal(events[2]!.data.final_answer, 'final of draft');
});

t.test('a failing agent ends the run with an error event and done failed', async (t) => {
  const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t), {
    agent: { info: { id: 'broken-1', name: 'Broken', description: 'fails' }, failure: { mode: 'error', error: 'model overloaded' } },
  });
  const id = await runWorkflow(server, key, slug);
  const events = await fullStream(key, id);
  t.same(types(events), ['error', 'done']);
  t.equal(events[0]!.data.code, 'AGENT_ERROR');
  t.match(events[0]!.data.message, /model overloaded/);
  t.equal(events[1]!.data.status, 'failed');
});

t.test('maxSteps bounds the agent rounds', async (t) => {
  const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t), {
    agent: { info: { id: 'looper-1', name: 'Looper', description: 'loops' }, output: { toolCalls: [{ id: 'c', name: 'lookup', input: {} }] } },
    extra: { maxSteps: 3 },
  });
  const id = await runWorkflow(server, key, slug);
  const events = await fullStream(key, id);
  t.equal(events.filter((e) => e.event === 'tool_result').length, 3);
  t.same(types(events).slice(-2), ['error', 'done']);
  t.equal(events.at(-2)!.data.code, 'MAX_STEPS_EXCEEDED');
});

t.test('cancelling a paused run ends it and its approval can no longer be decided', async (t) => {
  const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'high' });
  const id = await runWorkflow(server, key, slug);
  const sse = openSse(server.port, streamPath(id), key);
  await sse.waitFor((events) => events.length >= 1);
  const cancelled = await api(server, 'POST', `/v1/workflows/execute/${id}/cancel`, { key });
  t.equal(cancelled.status, 200);
  t.equal(cancelled.body.status, 'cancelled');
  await sse.waitFor(hasDone);
  t.same(sse.events.at(-1)!.data, { execution_id: id, status: 'cancelled', final_answer: null });
  const decision = await api(server, 'POST', `/v1/workflows/execute/${id}/approve/${sse.events[0]!.data.approval_id as string}`, { key });
  t.equal(decision.status, 409);
  const again = await api(server, 'POST', `/v1/workflows/execute/${id}/cancel`, { key });
  t.equal(again.status, 409);
});

t.test('definitions: create, read, list, replace and delete, scoped to the account', async (t) => {
  const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t));
  const got = await api(server, 'GET', `/v1/workflows/${slug}`, { key });
  t.equal(got.status, 200);
  t.match(got.body, { slug, scope: 'account', approvalTimeoutMs: 600000, onApprovalTimeout: 'reject', maxSteps: 20 });
  const list = await api(server, 'GET', '/v1/workflows', { key });
  t.ok((list.body.workflows as Array<{ slug: string }>).some((w) => w.slug === slug));
  const steps = got.body.steps as Array<{ id: string; agent: string }>;
  const put = await api(server, 'PUT', `/v1/workflows/${slug}`, { key, body: { name: 'Renamed', steps: [{ id: 'x', agent: steps[0]!.agent }], maxSteps: 5 } });
  t.equal(put.status, 200);
  t.equal(put.body.name, 'Renamed');
  t.equal(put.body.maxSteps, 5);
  const dup = await api(server, 'POST', '/v1/workflows', { key, body: { slug, name: 'Again', steps: [{ id: 'x', agent: steps[0]!.agent }] } });
  t.equal(dup.status, 409);
  t.equal(dup.body.error, 'WORKFLOW_ALREADY_EXISTS');
  const other = await createAccountWithKey(server);
  t.equal((await api(server, 'GET', `/v1/workflows/${slug}`, { key: other.key })).status, 404, 'invisible to another account');
  t.equal((await api(server, 'DELETE', `/v1/workflows/${slug}`, { key })).status, 204);
  const gone = await api(server, 'GET', `/v1/workflows/${slug}`, { key });
  t.equal(gone.status, 404);
  t.equal(gone.body.error, 'WORKFLOW_NOT_FOUND');
  const run = await api(server, 'POST', `/v1/workflows/${slug}/run`, { key, body: { task: 'x' } });
  t.equal(run.status, 404);
  t.equal(run.body.error, 'WORKFLOW_NOT_FOUND');
});

t.test('definitions naming an unknown agent, a refused tool URL or a duplicate step are 400', async (t) => {
  const { key } = await createAccountWithKey(server);
  const [agent] = await registerAgents(server, key, [toolUsingAgent('valid-agent-1', 'lookup')], t.teardown.bind(t));
  const base = { slug: 'bad', name: 'Bad' };
  const unknownAgent = await api(server, 'POST', '/v1/workflows', { key, body: { ...base, steps: [{ id: 's', agent: 'nobody' }] } });
  t.equal(unknownAgent.status, 400);
  t.equal(unknownAgent.body.field, 'steps.0.agent');
  const badUrl = await api(server, 'POST', '/v1/workflows', {
    key,
    body: { ...base, steps: [{ id: 's', agent: agent!.info.id, tools: [{ name: 't', url: 'ftp://example.com/x', risk: 'low' }] }] },
  });
  t.equal(badUrl.status, 400);
  t.equal(badUrl.body.field, 'steps.0.tools.0.url');
  const dupStep = await api(server, 'POST', '/v1/workflows', { key, body: { ...base, steps: [{ id: 's', agent: agent!.info.id }, { id: 's', agent: agent!.info.id }] } });
  t.equal(dupStep.status, 400);
  t.equal(dupStep.body.field, 'steps.1.id');
  const badRisk = await api(server, 'POST', '/v1/workflows', { key, body: { ...base, steps: [{ id: 's', agent: agent!.info.id, tools: [{ name: 't', url: tools.url, risk: 'medium' }] }] } });
  t.equal(badRisk.status, 400);
});

t.test('a key without workflows:approve cannot decide, and without workflows:write cannot define', async (t) => {
  const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'high', permissions: ['workflows:run', 'workflows:read', 'agents:write', 'agents:read', 'workflows:write'] });
  const id = await runWorkflow(server, key, slug);
  const sse = openSse(server.port, streamPath(id), key);
  await sse.waitFor((events) => events.length >= 1);
  const refused = await api(server, 'POST', `/v1/workflows/execute/${id}/approve/${sse.events[0]!.data.approval_id as string}`, { key });
  t.equal(refused.status, 403);
  t.equal(refused.body.requiredPermission, 'workflows:approve');
  await api(server, 'POST', `/v1/workflows/execute/${id}/cancel`, { key });
  sse.close();
});
