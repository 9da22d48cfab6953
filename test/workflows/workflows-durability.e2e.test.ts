/**
 * Workflows end to end (embedded servers): a pending approval survives a restart, a subscriber
 * that never reads is closed instead of buffered without bound, and definitions load from files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ADMIN_TOKEN, api, createAccountWithKey, startServer } from '../helpers/server.js';
import { openSse } from '../helpers/sse.js';
import { registerAgents, runWorkflow, setupWorkflow, startToolServer, toolUsingAgent, waitForStatus } from './fixtures.js';

const tools = await startToolServer();
t.teardown(() => tools.close());

const streamPath = (id: string): string => `/api/v1/workflows/execute/${id}/stream`;

t.test('a pending approval survives a restart: decided on the new server, the run completes', async (t) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'baton-wf-restart-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startServer(t, { mode: 'embedded', env: { BATON_DATA_DIR: dataDir } });
  const { key, slug } = await setupWorkflow(first, tools, t.teardown.bind(t), { risk: 'high' });
  const id = await runWorkflow(first, key, slug);
  const sse = openSse(first.port, streamPath(id), key);
  await sse.waitFor((events) => events.length >= 1);
  const request = sse.events[0]!;
  t.equal(request.event, 'approval_request');
  await first.stop();

  const second = await startServer(t, { mode: 'embedded', env: { BATON_DATA_DIR: dataDir } });
  const pending = await api(second, 'GET', '/v1/approvals?status=pending', { key });
  t.same((pending.body.approvals as Array<Record<string, unknown>>).map((a) => a.approval_id), [request.data.approval_id], 'still pending after the restart');
  const approved = await api(second, 'POST', `/v1/workflows/execute/${id}/approve/${request.data.approval_id as string}`, { key });
  t.equal(approved.status, 200);
  const done = await waitForStatus(second, key, id, ['completed', 'failed']);
  t.equal(done.status, 'completed');
  t.match(done.final_answer, /echoed/);
  // Reconnecting after the last event seen continues the numbering, without duplicates.
  const resumed = openSse(second.port, streamPath(id), key, { 'last-event-id': String(request.id) });
  await resumed.waitFor((events) => events.some((e) => e.event === 'done'));
  t.same(resumed.events.map((e) => e.event), ['approval_resolved', 'tool_executing', 'tool_result', 'chunk', 'done']);
  t.same(resumed.events.map((e) => e.id), [2, 3, 4, 5, 6]);
});

t.test('an approval whose deadline passed while the server was down expires on restart', async (t) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'baton-wf-restart-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startServer(t, { mode: 'embedded', env: { BATON_DATA_DIR: dataDir } });
  const { key, slug } = await setupWorkflow(first, tools, t.teardown.bind(t), { risk: 'high', extra: { approvalTimeoutMs: 1_000 } });
  const id = await runWorkflow(first, key, slug);
  const sse = openSse(first.port, streamPath(id), key);
  await sse.waitFor((events) => events.length >= 1);
  await first.stop();
  await new Promise((r) => setTimeout(r, 1_100));
  const second = await startServer(t, { mode: 'embedded', env: { BATON_DATA_DIR: dataDir } });
  const done = await waitForStatus(second, key, id, ['completed', 'failed']);
  t.equal(done.status, 'completed', 'the reject policy lets the agent finish');
  const expired = await api(second, 'GET', '/v1/approvals?status=expired', { key });
  t.equal((expired.body.approvals as unknown[]).length, 1);
});

t.test('a subscriber that never reads is closed while others get every event', async (t) => {
  const server = await startServer(t, { mode: 'embedded' });
  // An agent that keeps asking for a tool whose answer is 512 KB: 40 rounds, about 20 MB of
  // events, far beyond the 1 MiB per-subscriber cap and the sockets' buffers.
  const rounds = 40;
  const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t), {
    agent: { info: { id: 'firehose-1', name: 'Firehose', description: 'asks for a lot' }, output: { toolCalls: [{ id: 'c', name: 'lookup', input: { pad: 524_288 } }] } },
    extra: { maxSteps: rounds },
  });
  const id = await runWorkflow(server, key, slug);

  // A client that sends the request and then never reads a byte.
  const slow = net.connect(server.port, '127.0.0.1');
  let received = 0;
  let closedByServer = false;
  slow.on('data', (c: Buffer) => (received += c.length));
  slow.on('error', () => undefined);
  const slowClosed = new Promise<void>((resolve) => slow.on('close', () => ((closedByServer = true), resolve())));
  slow.write(`GET ${streamPath(id)} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n\r\n`);
  slow.pause();

  const reader = openSse(server.port, streamPath(id), key);
  await reader.waitFor((events) => events.some((e) => e.event === 'done'), 60_000);
  t.equal(reader.events.filter((e) => e.event === 'tool_result').length, rounds, 'a reading subscriber gets every event');
  await waitForStatus(server, key, id, ['failed']);

  // Now read what the slow client was sent: the server closed it well before the end.
  slow.resume();
  await slowClosed;
  t.ok(closedByServer, 'the lagging subscriber was closed');
  t.ok(received < (rounds * 524_288) / 2, `it got a bounded part of the stream (${received} bytes)`);
  const health = await api(server, 'GET', '/health');
  t.equal(health.status, 200, 'the server is fine');
});

t.test('workflows loaded from BATON_WORKFLOWS_DIR are listed and run for every account', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'baton-wf-files-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    path.join(dir, 'lookup.yaml'),
    [
      'slug: file-lookup',
      'name: File lookup',
      'steps:',
      '  - id: main',
      '    agent: global-tool-agent',
      '    tools:',
      '      - name: lookup',
      `        url: ${tools.url}/lookup`,
      '        risk: low',
    ].join('\n'),
  );
  const server = await startServer(t, { mode: 'embedded', env: { BATON_WORKFLOWS_DIR: dir } });
  await registerAgents(server, ADMIN_TOKEN, [toolUsingAgent('global-tool-agent', 'lookup')], t.teardown.bind(t));
  const { key } = await createAccountWithKey(server);
  const list = await api(server, 'GET', '/v1/workflows', { key });
  t.match(list.body.workflows, [{ slug: 'file-lookup', scope: 'file' }]);
  const id = await runWorkflow(server, key, 'file-lookup');
  const done = await waitForStatus(server, key, id, ['completed', 'failed']);
  t.equal(done.status, 'completed');
  const del = await api(server, 'DELETE', '/v1/workflows/file-lookup', { key: ADMIN_TOKEN });
  t.equal(del.status, 404, 'a file workflow changes by editing its file');
});

t.test('a bad workflow file stops the server from starting, naming the file', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'baton-wf-files-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'broken.json'), JSON.stringify({ slug: 'Bad Slug', name: 'x', steps: [] }));
  await t.rejects(startServer(t, { mode: 'embedded', env: { BATON_WORKFLOWS_DIR: dir } }), /broken\.json/);
});

t.test('on shutdown an open stream ends with a final comment, and resuming by id loses nothing', async (t) => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'baton-wf-drain-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const first = await startServer(t, { mode: 'embedded', env: { BATON_DATA_DIR: dataDir } });
  const { key, slug } = await setupWorkflow(first, tools, t.teardown.bind(t), { risk: 'high' });
  const id = await runWorkflow(first, key, slug);
  const sse = openSse(first.port, streamPath(id), key);
  await sse.waitFor((events) => events.length >= 1);
  await first.stop();
  t.ok(sse.comments.some((c) => /shutting down/.test(c)), `final comment received: ${JSON.stringify(sse.comments)}`);
});
