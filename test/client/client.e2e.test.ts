/**
 * The typed client against a spawned server (embedded): every response it reads conforms to the
 * document's schema, waiting for an execution, iterating a workflow's events across a dropped
 * connection, listing and deciding approvals, verifying a webhook, and the API reference itself.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import t from 'tap';
import { BatonApiError, createBatonClient, verifyWebhook, type WorkflowEvent } from '../../src/client/index.js';
import { declaredDocument } from '../../scripts/openapi-document.js';
import { startMockAgentFleet } from '../fixtures/mock-agent-fleet.js';
import { ADMIN_TOKEN, startServer } from '../helpers/server.js';
import { setupWorkflow, startToolServer } from '../workflows/fixtures.js';

const server = await startServer(t, { mode: 'embedded' });
const tools = await startToolServer();
t.teardown(() => tools.close());

const document = await declaredDocument();
const addFormats = ajvFormats.default as unknown as ajvFormats.FormatsPlugin;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ ...document, $id: 'openapi' });
/** Asserts `value` is valid against a named schema of the document. */
function conforms(t: { ok(value: unknown, message: string): unknown }, name: string, value: unknown): void {
  const validate = ajv.getSchema(`openapi#/components/schemas/${name}`)!;
  t.ok(validate(value), `${name}: ${ajv.errorsText(validate.errors)}`);
}

const operator = createBatonClient({ baseUrl: server.url, apiKey: ADMIN_TOKEN });

async function newKey(): Promise<string> {
  const account = await operator.api.POST('/v1/accounts', { body: { name: 'client test', tier: 'BUSINESS' } });
  const key = await operator.api.POST('/v1/api-keys', { body: { name: 'client', permissions: ['*'], accountId: account.data!.id } });
  return key.data!.key;
}

t.test('GET /openapi.json serves the declared document, and /docs the reference under a strict CSP', async (t) => {
  const served = await fetch(`${server.url}/openapi.json`);
  t.equal(served.status, 200);
  t.same(await served.json(), document);
  const page = await fetch(`${server.url}/docs`);
  t.equal(page.status, 200);
  const csp = page.headers.get('content-security-policy') ?? '';
  t.match(csp, /default-src 'none'/);
  t.match(csp, /script-src 'self'(;|$)/, 'no inline or remote scripts');
  t.match(await page.text(), /src="\/docs\/scalar\.js"/);
  const bundle = await fetch(`${server.url}/docs/scalar.js`);
  t.equal(bundle.status, 200);
  t.match(bundle.headers.get('content-type'), /javascript/);
  t.ok((await bundle.text()).length > 100_000, 'the bundled renderer');
});

t.test('orchestrate, then wait for the execution; responses match the document', async (t) => {
  const key = await newKey();
  const fleet = await startMockAgentFleet([
    { info: { id: 'summ', name: 'Summariser', description: 'summarises contracts', capabilities: ['summarise'], pricing: { model: 'per_execution', basePrice: 0.01 } }, output: { summary: 'ok' }, latencyMs: 300 },
  ]);
  t.teardown(() => fleet.close());
  const baton = createBatonClient({ baseUrl: server.url, apiKey: key });
  const agent = await baton.api.POST('/v1/agents', {
    body: { id: 'summ', name: 'Summariser', description: 'summarises contracts', url: fleet.agents[0]!.url, vertical: 'legal', capabilities: ['summarise'], pricing: { model: 'per_execution', basePrice: 0.01 } },
  });
  t.equal(agent.response.status, 201);
  conforms(t, 'Agent', agent.data);
  const created = await baton.orchestrate({ query: 'summarise this contract' }, { idempotencyKey: 'client-test-1' });
  conforms(t, 'ExecutionCreated', created);
  const done = await baton.waitForExecution(created.executionId, { timeoutMs: 20_000, intervalMs: 100 });
  t.equal(done.status, 'COMPLETED');
  conforms(t, 'Execution', done);
  const list = await baton.api.GET('/v1/agents', { params: { query: { limit: 10 } } });
  conforms(t, 'AgentList', list.data);
  const me = await baton.api.GET('/v1/auth/test');
  conforms(t, 'AuthTest', me.data);
  const missing = await baton.waitForExecution('exec_missing').catch((e: unknown) => e);
  t.ok(missing instanceof BatonApiError);
  t.equal((missing as BatonApiError).status, 404);
  t.equal((missing as BatonApiError).code, 'EXECUTION_NOT_FOUND');
  conforms(t, 'EXECUTION_NOT_FOUND_Error', (missing as BatonApiError).body);
});

/** A fetch whose event-stream bodies break after `cutAfter` bytes on the first connection, like a dropped network. */
function droppingFetch(cutAfter: number, seen: Array<string | null>): typeof fetch {
  let dropped = false;
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!String(input).endsWith('/stream')) return response;
    seen.push(new Headers(init?.headers).get('last-event-id'));
    if (dropped) return response;
    dropped = true;
    const reader = response.body!.getReader();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { value, done } = await reader.read();
        if (done || sent >= cutAfter) {
          void reader.cancel();
          controller.error(new TypeError('network connection lost'));
          return;
        }
        sent += value.byteLength;
        controller.enqueue(value);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

t.test('a workflow run: events resume after a dropped connection; the pending approval is approved', async (t) => {
  const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'high' });
  const seen: Array<string | null> = [];
  const baton = createBatonClient({ baseUrl: server.url, apiKey: key, fetch: droppingFetch(1, seen) });
  const run = await baton.runWorkflow(slug, { task: 'what is the weather' });
  conforms(t, 'WorkflowRunStarted', run);
  const events: WorkflowEvent[] = [];
  for await (const event of baton.workflowEvents(run.execution_id, { retryDelayMs: 50 })) {
    events.push(event);
    if (event.event === 'approval_request') {
      const pending = await baton.listApprovals();
      t.same(pending.map((a) => a.approval_id), [event.data.approval_id]);
      conforms(t, 'Approval', pending[0]);
      const decided = await baton.approve(run.execution_id, event.data.approval_id, 'fine');
      t.equal(decided.status, 'approved');
    }
  }
  t.same(events.map((e) => e.event), ['approval_request', 'approval_resolved', 'tool_executing', 'tool_result', 'chunk', 'done']);
  t.same(events.map((e) => e.id), ['1', '2', '3', '4', '5', '6'], 'no event lost or repeated');
  t.ok(seen.length >= 2, 'the stream was reopened');
  t.equal(seen[0], null);
  t.equal(seen[1], '1', 'resumed with Last-Event-ID of the last event received');
  const schemas: Record<string, string> = { approval_request: 'ApprovalRequestEvent', approval_resolved: 'ApprovalResolvedEvent', tool_executing: 'ToolExecutingEvent', tool_result: 'ToolResultEvent', chunk: 'ChunkEvent', done: 'DoneEvent' };
  for (const event of events) conforms(t, schemas[event.event]!, event.data);
  t.same(await baton.listApprovals(), [], 'nothing pending any more');
});

t.test('reject tells the run no; the run still finishes', async (t) => {
  const { key, slug } = await setupWorkflow(server, tools, t.teardown.bind(t), { risk: 'high' });
  const baton = createBatonClient({ baseUrl: server.url, apiKey: key });
  const run = await baton.runWorkflow(slug, { task: 'what is the weather' });
  const names: string[] = [];
  for await (const event of baton.workflowEvents(run.execution_id)) {
    names.push(event.event);
    if (event.event === 'approval_request') await baton.reject(run.execution_id, event.data.approval_id, 'not today');
    if (event.event === 'approval_resolved') t.same(event.data, { approval_id: event.data.approval_id, decision: 'rejected', reason: 'not today' });
  }
  t.same(names, ['approval_request', 'approval_resolved', 'chunk', 'done']);
  const again = await baton.approve(run.execution_id, 'apr_000000000000000000000000').catch((e: unknown) => e);
  t.equal((again as BatonApiError).code, 'APPROVAL_NOT_FOUND');
});

t.test('verifyWebhook accepts a delivery signed by Baton and refuses a tampered one', async (t) => {
  const key = await newKey();
  const fleet = await startMockAgentFleet([
    { info: { id: 'hooked', name: 'Hooked', description: 'does hooked work', capabilities: ['hooked'], pricing: { model: 'per_execution', basePrice: 0.01 } }, output: { done: true } },
  ]);
  t.teardown(() => fleet.close());
  const baton = createBatonClient({ baseUrl: server.url, apiKey: key });
  await baton.api.POST('/v1/agents', {
    body: { id: 'hooked', name: 'Hooked', description: 'does hooked work', url: fleet.agents[0]!.url, vertical: 'test', capabilities: ['hooked'], pricing: { model: 'per_execution', basePrice: 0.01 } },
  });
  const results: Array<{ ok: boolean; event?: string; tamperedOk: boolean }> = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const check = verifyWebhook(raw, req.headers, { secret: 'hook-secret', toleranceSeconds: 600 });
      const tampered = verifyWebhook(Buffer.concat([raw, Buffer.from(' ')]), req.headers, { secret: 'hook-secret' });
      results.push({ ok: check.ok, ...(check.ok ? { event: check.webhook.event } : {}), tamperedOk: tampered.ok });
      if (check.ok) conforms(t, check.webhook.event === 'execution.started' ? 'ExecutionStartedWebhook' : 'ExecutionCompletedWebhook', JSON.parse(raw.toString()));
      res.writeHead(check.ok ? 200 : 401).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => receiver.close(resolve)));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const created = await baton.orchestrate({ query: 'do hooked work', webhook: { url, secret: 'hook-secret' } });
  await baton.waitForExecution(created.executionId, { intervalMs: 100 });
  const deadline = Date.now() + 15_000;
  while (results.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  t.same(results, [
    { ok: true, event: 'execution.started', tamperedOk: false },
    { ok: true, event: 'execution.completed', tamperedOk: false },
  ]);
});
