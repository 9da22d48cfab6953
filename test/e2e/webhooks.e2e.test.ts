/**
 * Webhooks end to end: an orchestration with a webhook posts started then completed (or failed,
 * or cancelled) to a real receiver, signed so the exported helper verifies them, retried with the
 * same delivery id after a 5xx, and listed in the execution's delivery log.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { verifySignature } from '../../src/logic/webhooks/verify.js';
import { startMockAgentFleet } from '../fixtures/mock-agent-fleet.js';
import { api, createAccountWithKey, startServer } from '../helpers/server.js';

const server = await startServer(t, { mode: 'embedded' });
const SECRET = 'whsec-test-secret';

interface Received {
  readonly headers: http.IncomingHttpHeaders;
  readonly raw: string;
  readonly body: Record<string, unknown>;
}

async function receiver(t: { teardown(fn: () => unknown): void }, failFirst = 0) {
  const received: Received[] = [];
  let failures = failFirst;
  const srv = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString();
      received.push({ headers: req.headers, raw, body: JSON.parse(raw) as Record<string, unknown> });
      if (failures > 0) {
        failures--;
        res.writeHead(503).end();
      } else {
        res.writeHead(200).end('ok');
      }
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => srv.close(resolve)));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hook`, received };
}

async function until(predicate: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function accountWithAgent(t: { teardown(fn: () => unknown): void }, latencyMs = 0) {
  const { key } = await createAccountWithKey(server, 'BUSINESS');
  const fleet = await startMockAgentFleet([
    { info: { id: 'hooked', name: 'Hooked', description: 'does hooked work', capabilities: ['hooked'], pricing: { model: 'per_execution', basePrice: 0.01 } }, output: { done: true }, latencyMs },
  ]);
  t.teardown(() => fleet.close());
  const agent = fleet.agents[0]!;
  const reg = await api(server, 'POST', '/v1/agents', {
    key,
    body: { id: 'hooked', name: 'Hooked', description: 'does hooked work', url: agent.url, vertical: 'test', capabilities: ['hooked'], pricing: { model: 'per_execution', basePrice: 0.01 } },
  });
  if (reg.status !== 201) throw new Error(reg.text);
  return key;
}

t.test('started then completed arrive in order, signed, with the spec fields', async (t) => {
  const hook = await receiver(t);
  const key = await accountWithAgent(t);
  const res = await api(server, 'POST', '/v1/orchestrate', {
    key,
    body: { query: 'hooked', selectionCriteria: { minConfidence: 0 }, webhook: { url: hook.url, secret: SECRET } },
  });
  t.equal(res.status, 202);
  await until(() => hook.received.length >= 2);
  t.same(hook.received.map((r) => r.body.event), ['execution.started', 'execution.completed']);
  const completed = hook.received[1]!;
  t.same(Object.keys(completed.body), ['event', 'executionId', 'timestamp', 'signature', 'data'], 'fields in the spec order');
  t.equal(completed.body.executionId, res.body.executionId);
  t.match(completed.body.data, { status: 'COMPLETED', result: { details: { hooked: { done: true } } }, metadata: { actualCost: 0.0105 } });
  t.ok(verifySignature(completed.raw, completed.headers['x-service-signature'] as string, SECRET), 'header signature verifies the raw body');
  const expected = `sha256=${createHmac('sha256', SECRET).update(completed.raw).digest('hex')}`;
  t.equal(completed.headers['x-service-signature'], expected);
  const { signature, ...unsigned } = completed.body;
  t.equal(signature, `sha256=${createHmac('sha256', SECRET).update(JSON.stringify(unsigned)).digest('hex')}`, 'body signature covers the payload without itself');
  t.equal(completed.headers['x-service-event'], 'execution.completed');
  t.match(completed.headers['x-service-delivery'], /^dlv_/);
  t.ok(completed.headers['webhook-id'] && completed.headers['webhook-timestamp'] && completed.headers['webhook-signature']);

  const log = await api<{ deliveries: Array<Record<string, unknown>> }>(server, 'GET', `/v1/executions/${res.body.executionId as string}/webhooks`, { key });
  t.equal(log.status, 200);
  await until(() => true);
  t.same(log.body.deliveries.map((d) => d.event), ['execution.started', 'execution.completed']);
});

t.test('a 5xx is retried with the same delivery id', async (t) => {
  const hook = await receiver(t, 1);
  const key = await accountWithAgent(t);
  await api(server, 'POST', '/v1/orchestrate', {
    key,
    body: { query: 'hooked', selectionCriteria: { minConfidence: 0 }, webhook: { url: hook.url, secret: SECRET, events: ['execution.completed'] } },
  });
  await until(() => hook.received.length >= 2, 20_000);
  t.equal(hook.received[0]!.headers['x-service-delivery'], hook.received[1]!.headers['x-service-delivery']);
  t.equal(hook.received[0]!.raw, hook.received[1]!.raw, 'identical bytes on retry');
  t.same(hook.received.map((r) => r.body.event), ['execution.completed', 'execution.completed'], 'only the subscribed event');
});

t.test('a cancelled execution posts execution.cancelled after execution.started', async (t) => {
  const hook = await receiver(t);
  const key = await accountWithAgent(t, 3_000);
  const res = await api(server, 'POST', '/v1/orchestrate', {
    key,
    body: { query: 'hooked', selectionCriteria: { minConfidence: 0 }, webhook: { url: hook.url } },
  });
  await until(() => hook.received.length >= 1);
  await api(server, 'POST', `/v1/executions/${res.body.executionId as string}/cancel`, { key });
  await until(() => hook.received.length >= 2);
  t.same(hook.received.map((r) => r.body.event), ['execution.started', 'execution.cancelled']);
  t.notOk('signature' in hook.received[1]!.body, 'no secret: unsigned');
});

t.test('a private webhook URL is refused when private URLs are not allowed', async (t) => {
  const strict = await startServer(t, { mode: 'embedded', env: { BATON_ALLOW_PRIVATE_URLS: 'false' } });
  const { key } = await createAccountWithKey(strict, 'BUSINESS');
  const res = await api(strict, 'POST', '/v1/orchestrate', { key, body: { query: 'x', webhook: { url: 'http://127.0.0.1:9/hook' } } });
  t.equal(res.status, 400);
  t.equal(res.body.field, 'webhook.url');
});
