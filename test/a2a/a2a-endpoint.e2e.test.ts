/**
 * A2A end to end with the SDK's own client (v0.3 JSON-RPC transport, found from the agent card)
 * against a spawned Baton: the card with and without a key, message/send to a completed task and
 * to one paused for approval (input-required, then answered on the task), message/stream to the
 * pause and on to the end, tasks/resubscribe replaying the whole log, tasks/get, tasks/cancel,
 * and keys and permissions.
 */
import { TaskState } from '@a2a-js/sdk';
import t from 'tap';
import { api, startServer } from '../helpers/server.js';
import { setupWorkflow, startToolServer } from '../workflows/fixtures.js';
import { answerOf, approvalData, asTask, collect, connect as connectTo, message, send, states, type Client } from './client.js';

const server = await startServer(t, { mode: 'embedded' });
const tools = await startToolServer();
t.teardown(() => tools.close());

const connect = (key: string): Promise<Client> => connectTo(server.url, key);

t.test('the agent card: public without account data, the key\'s workflows as skills with a key', async (t) => {
  const setup = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'low' });
  const anonymous = await fetch(`${server.url}/.well-known/agent-card.json`);
  t.equal(anonymous.status, 200);
  const card = await anonymous.json() as Record<string, unknown>;
  t.equal(card.url, `${server.url}/a2a`);
  t.equal(card.protocolVersion, '0.3.0');
  t.equal(card.preferredTransport, 'JSONRPC');
  t.same(card.skills, [], 'no skills without a key');
  t.equal(card.supportsAuthenticatedExtendedCard, true);
  t.notMatch(JSON.stringify(card), setup.slug);

  const keyed = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { authorization: `Bearer ${setup.key}` } });
  const skills = (await keyed.json() as { skills: Array<{ id: string }> }).skills;
  t.same(skills.map((s) => s.id), [setup.slug]);

  const badKey = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { authorization: 'Bearer mk_00000000000000000000000000000000' } });
  t.equal(badKey.status, 401, 'a key that is sent must be valid');

  const client = await connect(setup.key);
  const extended = await client.getAgentCard();
  t.same(extended.skills.map((s) => s.id), [setup.slug], 'the extended card (agent/getAuthenticatedExtendedCard) has the skills');
});

t.test('message/send runs the workflow to its answer; tasks/get reads it; errors are A2A errors', async (t) => {
  const setup = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'low' });
  const client = await connect(setup.key);
  const task = asTask(await send(client, message('what is the weather', { skill: setup.slug })));
  t.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
  t.match(answerOf(task), /^answer: /);
  t.match(task.id, /^exec_/);
  t.not(task.contextId, '', 'a context id is given when the client sent none');

  const read = await client.getTask({ tenant: '', id: task.id });
  t.equal(read.status?.state, TaskState.TASK_STATE_COMPLETED);
  t.equal(answerOf(read), answerOf(task));
  t.equal(read.contextId, task.contextId);

  // The only workflow the key sees is used when the message names none.
  const unnamed = asTask(await send(client, message('and tomorrow?')));
  t.equal(unnamed.status?.state, TaskState.TASK_STATE_COMPLETED);

  await t.rejects(client.getTask({ tenant: '', id: 'exec_nope' }), /not found/i);
  await t.rejects(client.cancelTask({ tenant: '', id: task.id, metadata: undefined }), /cancel/i);
  await t.rejects(send(client, message('hello', { skill: 'no-such-flow' })), /no-such-flow/);
});

t.test('a pause for approval is input-required; a reply on the task decides it', async (t) => {
  const setup = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'high' });
  const client = await connect(setup.key);
  const callsBefore = tools.calls.length;
  const paused = asTask(await send(client, message('what is the weather')));
  t.equal(paused.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
  const approval = approvalData(paused.status);
  t.match(approval.approval_id, /^apr_/);
  t.equal(approval.tool_name, 'lookup');
  t.equal(tools.calls.length, callsBefore, 'the tool has not been called');

  await t.rejects(send(client, message('maybe', { taskId: paused.id })), /approve/, 'an unclear reply is refused');
  const done = asTask(await send(client, message('approve', { taskId: paused.id })));
  t.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED);
  t.match(answerOf(done), /^answer: /);
  t.equal(tools.calls.length, callsBefore + 1, 'the approved tool call ran once');
  await t.rejects(send(client, message('approve', { taskId: paused.id })), /not waiting for input/);

  const another = asTask(await send(client, message('what is the weather')));
  t.equal(another.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
  const cancelled = await client.cancelTask({ tenant: '', id: another.id, metadata: undefined });
  t.equal(cancelled.status?.state, TaskState.TASK_STATE_CANCELED);
});

t.test('message/stream follows to the pause and on to the end; tasks/resubscribe replays the whole log', async (t) => {
  const setup = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'high' });
  const client = await connect(setup.key);
  const first = await collect(client.sendMessageStream({
    tenant: '',
    message: message('what is the weather'),
    configuration: undefined,
    metadata: undefined,
  }));
  t.equal(first[0]?.payload?.$case, 'task', 'the stream starts with the task');
  const taskId = first[0]?.payload?.$case === 'task' ? first[0].payload.value.id : '';
  t.match(taskId, /^exec_/);
  t.equal(states(first).at(-1), TaskState.TASK_STATE_INPUT_REQUIRED, 'the first stream ends at the pause');
  const pause = first.at(-1)!;
  t.equal(pause.payload?.$case, 'statusUpdate');
  if (pause.payload?.$case === 'statusUpdate') t.match(approvalData(pause.payload.value.status).approval_id, /^apr_/);

  const second = await collect(client.sendMessageStream({ tenant: '', message: message('approve', { taskId }), configuration: undefined, metadata: undefined }));
  const artifact = second.find((e) => e.payload?.$case === 'artifactUpdate' && e.payload.value.lastChunk);
  t.ok(artifact, 'the final answer arrives as the answer artifact');
  t.equal(states(second).at(-1), TaskState.TASK_STATE_COMPLETED);
  t.notOk(states(second).slice(1).includes(TaskState.TASK_STATE_INPUT_REQUIRED), 'the answered pause is not repeated');

  const replay = await collect(client.resubscribeTask({ tenant: '', id: taskId }));
  const replayed = states(replay);
  t.ok(replayed.includes(TaskState.TASK_STATE_INPUT_REQUIRED), 'the pause is in the replay');
  t.equal(replayed.at(-1), TaskState.TASK_STATE_COMPLETED, 'and the end');
  const ids = replay.map((e) => (e.payload?.value as { metadata?: { eventId?: number } }).metadata?.eventId).filter((id): id is number => id !== undefined);
  t.ok(ids.length > 3);
  t.same(ids, [...ids].sort((a, b) => a - b), 'in log order');
  t.equal(ids[0], 1, 'from the first event of the log: nothing is lost');
  const streamedStates = [...states(first).slice(1), ...states(second).slice(1)];
  t.same(replayed, streamedStates, 'the replay has the same updates the live streams had');

  await t.rejects(collect(client.resubscribeTask({ tenant: '', id: 'exec_nope' })), /not found/i);
});

t.test('keys and permissions apply as on the REST API', async (t) => {
  const setup = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'low' });
  const anonymous = await fetch(`${server.url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'exec_x' } }),
  });
  t.equal(anonymous.status, 401);

  const readOnly = await api(server, 'POST', '/v1/api-keys', { key: setup.key, body: { name: 'read only', permissions: ['workflows:read'] } });
  t.equal(readOnly.status, 201, readOnly.text);
  const client = await connect(readOnly.body.key as string);
  await t.rejects(send(client, message('what is the weather', { skill: setup.slug })), /Insufficient permissions/);

  const full = await connect(setup.key);
  const task = asTask(await send(full, message('what is the weather', { skill: setup.slug })));
  const read = await client.getTask({ tenant: '', id: task.id });
  t.equal(read.status?.state, TaskState.TASK_STATE_COMPLETED, 'reading needs only workflows:read');

  // The v0.3 wire shape as docs/a2a.md shows it with curl.
  const raw = await fetch(`${server.url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': setup.key },
    body: JSON.stringify({
      jsonrpc: '2.0', id: 'r1', method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'what is the weather' }], metadata: { skill: setup.slug } } },
    }),
  });
  const rawBody = await raw.json() as { id: string; result: { kind: string; id: string; status: { state: string }; artifacts: Array<{ artifactId: string; parts: Array<{ kind: string; text: string }> }> } };
  t.equal(rawBody.id, 'r1');
  t.equal(rawBody.result.kind, 'task');
  t.equal(rawBody.result.status.state, 'completed');
  t.match(rawBody.result.artifacts[0]?.parts[0]?.text, /^answer: /);

  const malformed = await fetch(`${server.url}/a2a`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${setup.key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tasks/nope', params: {} }),
  });
  const body = await malformed.json() as { id: number; error: { code: number } };
  t.equal(body.id, 7);
  t.equal(body.error.code, -32601);
});
