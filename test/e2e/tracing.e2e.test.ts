/**
 * OpenTelemetry traces observed on the wire: the server runs with OTEL_EXPORTER_OTLP_ENDPOINT
 * pointing at a real OTLP/HTTP receiver of this test, and agents from the mock fleet record the
 * `traceparent` they receive.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import t from 'tap';
import { registerAgents } from '../helpers/agents.js';
import { startOtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { api, createAccountWithKey, realServersAvailable, startServer } from '../helpers/server.js';

const receiver = await startOtlpReceiver();
t.teardown(() => receiver.close());
// Real stores when present (one worker: the log assertion reads one process's output).
const server = await startServer(t, {
  ...(realServersAvailable() ? { mode: 'real' as const, workers: 1 } : { mode: 'embedded' as const }),
  env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'baton-under-test', OTEL_BSP_SCHEDULE_DELAY: '100' },
});

type Json = Record<string, unknown>;

async function waitForEnd(key: string, id: string): Promise<Json> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await api(server, 'GET', `/v1/executions/${id}`, { key });
    if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(res.body.status as string)) return res.body;
    if (Date.now() > deadline) throw new Error(`execution ${id} still ${res.body.status as string}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function agent(id: string, extra: Json = {}) {
  return {
    info: { id, name: `Agent ${id}`, description: `Does ${id} work`, capabilities: [`cap-${id}`], pricing: { model: 'per_execution', basePrice: 0.02 } },
    ...extra,
  };
}

t.test('an orchestration is one trace: the client span, the request, the run and one invoke_agent span per agent', async (t) => {
  const { key } = await createAccountWithKey(server, 'BUSINESS');
  const agents = await registerAgents(
    server,
    key,
    [
      agent('alpha', { cost: 0.03, metadata: { model: 'test-model-1', tokensUsed: { input: 120, output: 45 } } }),
      agent('beta', { failure: { mode: 'error', status: 500, error: 'beta broke', cost: 0.01 } }),
    ],
    t.teardown.bind(t),
  );
  // A webhook receiver: deliveries join the run's trace too.
  const hooks: http.IncomingHttpHeaders[] = [];
  const hookServer = http.createServer((req, res) => {
    hooks.push(req.headers);
    req.resume().on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => hookServer.close(() => resolve())));
  const hookPort = (hookServer.address() as { port: number }).port;
  const traceId = randomBytes(16).toString('hex');
  const clientSpanId = randomBytes(8).toString('hex');
  const res = await api(server, 'POST', '/v1/orchestrate', {
    key,
    headers: { traceparent: `00-${traceId}-${clientSpanId}-01` },
    body: {
      query: 'do alpha and beta work',
      selectionCriteria: { requiredCapabilities: [], minConfidence: 0, maxAgents: 2 },
      webhook: { url: `http://127.0.0.1:${hookPort}/hook`, events: ['execution.completed'] },
    },
  });
  t.equal(res.status, 202);
  const executionId = res.body.executionId as string;
  const done = await waitForEnd(key, executionId);
  t.equal(done.status, 'COMPLETED', 'one of two agents succeeded');

  const inTrace = (spans: readonly ReceivedSpan[]) => spans.filter((s) => s.traceId === traceId);
  await receiver.until((spans) => inTrace(spans).filter((s) => s.name.startsWith('invoke_agent ')).length === 2 && inTrace(spans).some((s) => s.name.startsWith('orchestration ')));
  const spans = inTrace(receiver.spans);

  const request = spans.find((s) => s.name === 'POST /v1/orchestrate');
  t.ok(request, 'the request span joined the client trace');
  t.equal(request!.parentSpanId, clientSpanId, "the request span's parent is the client's span");
  t.equal(request!.kind, 2, 'server span');
  t.equal(request!.attributes['http.route'], '/v1/orchestrate');
  t.equal(request!.attributes['http.response.status_code'], 202);
  t.equal(request!.resource['service.name'], 'baton-under-test');

  const run = spans.find((s) => s.name === `orchestration ${executionId}`)!;
  t.equal(run.parentSpanId, request!.spanId, 'the run (in an actor, after the 202) continues the request');
  t.equal(run.attributes['baton.execution.id'], executionId);
  t.equal(run.attributes['baton.execution.status'], 'COMPLETED');

  const alpha = spans.find((s) => s.name === 'invoke_agent Agent alpha')!;
  t.equal(alpha.parentSpanId, run.spanId);
  t.equal(alpha.kind, 3, 'client span');
  t.match(alpha.attributes, {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.id': 'alpha',
    'gen_ai.agent.name': 'Agent alpha',
    'gen_ai.response.model': 'test-model-1',
    'gen_ai.usage.input_tokens': 120,
    'gen_ai.usage.output_tokens': 45,
    'baton.agent.cost_usd': 0.03,
  });
  t.equal(alpha.statusCode, 0);

  const beta = spans.find((s) => s.name === 'invoke_agent Agent beta')!;
  t.equal(beta.statusCode, 2, 'a failed call is an error span');
  t.equal(beta.attributes['error.type'], 'AGENT_ERROR', 'with the catalogue code');
  t.equal(beta.attributes['baton.agent.cost_usd'], 0.01);

  const stores = spans.filter((s) => s.name.startsWith('store ') && s.parentSpanId === request!.spanId);
  t.ok(stores.some((s) => s.name === 'store executions.insert'), 'store calls on the request path are spans of the request');

  // Each agent received the traceparent of its own invoke_agent span.
  for (const [mock, span] of [[agents[0]!, alpha], [agents[1]!, beta]] as const) {
    const call = mock.requests.find((r) => r.path === '/execute')!;
    t.equal(call.headers.traceparent, `00-${traceId}-${span.spanId}-01`);
  }
  await receiver.until((all) => inTrace(all).some((s) => s.name === 'webhook execution.completed'));
  const hook = inTrace(receiver.spans).find((s) => s.name === 'webhook execution.completed')!;
  t.equal(hook.parentSpanId, run.spanId, 'the delivery is a child of the run that announced it');
  t.equal(hook.attributes['http.response.status_code'], 204);
  t.equal(hooks[0]?.traceparent, `00-${traceId}-${hook.spanId}-01`, 'the webhook receiver sees the trace context');
  t.ok(receiver.contentTypes.every((c) => c.startsWith('application/json')), 'OTLP/HTTP JSON');
  t.match(server.output(), new RegExp(`"trace_id":"${traceId}"`), "the execution's logs carry its trace id");
});

t.test('a refused request is an error-coded span; without a traceparent it starts its own trace', async (t) => {
  const res = await api(server, 'GET', '/v1/executions/exec_nope', { key: (await createAccountWithKey(server)).key });
  t.equal(res.status, 404);
  await receiver.until((spans) => spans.some((s) => s.name === 'GET /v1/executions/:id' && s.attributes['error.type'] === 'EXECUTION_NOT_FOUND'));
  const span = receiver.spans.find((s) => s.name === 'GET /v1/executions/:id' && s.attributes['error.type'] === 'EXECUTION_NOT_FOUND')!;
  t.equal(span.parentSpanId, '', 'a root span');
  t.equal(span.attributes['http.response.status_code'], 404);
  t.equal(span.attributes['baton.request_id'], res.headers.get('x-request-id'));
});
