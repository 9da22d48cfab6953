import { createHmac } from 'node:crypto';
import t from 'tap';
import { completedData, startedData, WebhookEvent } from '../../src/logic/webhooks/events.js';
import { buildDelivery } from '../../src/logic/webhooks/outbox.js';
import { attemptHeaders, standardWebhooksSignature, webhookBody } from '../../src/logic/webhooks/sign.js';
import { verifySignature, verifyWebhook } from '../../src/logic/webhooks/verify.js';

const at = new Date('2024-05-01T12:00:00.000Z');
const data = completedData({ summary: 'done', details: { a: { x: 1 } } }, { actualCostMicros: 55_000, actualDurationMs: 1234, agentsUsed: 1 });

t.test('the body has the spec fields in order with a signature over the body without it', async (t) => {
  const body = webhookBody(WebhookEvent.COMPLETED, 'exec_1', at, data, 'topsecret');
  const parsed = JSON.parse(body) as Record<string, unknown>;
  t.same(Object.keys(parsed), ['event', 'executionId', 'timestamp', 'signature', 'data']);
  const unsigned = JSON.stringify({ event: parsed.event, executionId: parsed.executionId, timestamp: parsed.timestamp, data: parsed.data });
  t.equal(parsed.signature, 'sha256=' + createHmac('sha256', 'topsecret').update(unsigned).digest('hex'));
  t.equal(parsed.timestamp, '2024-05-01T12:00:00.000Z');
  t.same(parsed.data, { status: 'COMPLETED', result: { summary: 'done', details: { a: { x: 1 } } }, metadata: { actualCost: 0.055, actualDuration: 1234, agentsUsed: 1 } });
});

t.test('X-Service-Signature is the HMAC of the exact raw body and verifies', async (t) => {
  const d = buildDelivery({ accountId: 'acct_1', executionId: 'exec_1', config: { url: 'https://h.example', secret: 'topsecret' }, event: WebhookEvent.COMPLETED, data, at });
  t.equal(d.headers['X-Service-Signature'], 'sha256=' + createHmac('sha256', 'topsecret').update(d.body).digest('hex'));
  t.equal(d.headers['X-Service-Event'], 'execution.completed');
  t.equal(d.headers['X-Service-Delivery'], d.id);
  t.match(d.id, /^dlv_[0-9a-f]{24}$/);
  const lowerCased = Object.fromEntries(Object.entries(d.headers).map(([k, v]) => [k.toLowerCase(), v]));
  const check = verifyWebhook(d.body, lowerCased, { secret: 'topsecret' });
  t.match(check, { ok: true, webhook: { event: 'execution.completed', executionId: 'exec_1', deliveryId: d.id } });
});

t.test('verification fails with the wrong secret, a changed body, or no signature', async (t) => {
  const d = buildDelivery({ accountId: 'acct_1', executionId: 'exec_1', config: { url: 'https://h.example', secret: 'topsecret' }, event: WebhookEvent.STARTED, data: startedData(at), at });
  t.match(verifyWebhook(d.body, d.headers, { secret: 'other' }), { ok: false, reason: 'bad_signature' });
  t.match(verifyWebhook(d.body.replace('RUNNING', 'RUNNINF'), d.headers, { secret: 'topsecret' }), { ok: false, reason: 'bad_signature' });
  t.match(verifyWebhook(d.body, {}, { secret: 'topsecret' }), { ok: false, reason: 'missing_signature' });
  t.equal(verifySignature(d.body, 'sha256=abcd', 'topsecret'), false, 'a short signature is refused without throwing');
  t.equal(verifySignature(d.body, 'md5=00', 'topsecret'), false);
});

t.test('verification accepts fetch-style Headers', async (t) => {
  const d = buildDelivery({ accountId: 'acct_1', executionId: 'exec_1', config: { url: 'https://h.example', secret: 'k' }, event: WebhookEvent.STARTED, data: startedData(at), at });
  t.equal(verifyWebhook(Buffer.from(d.body), new Headers(d.headers), { secret: 'k' }).ok, true);
});

t.test('a tolerance refuses events older than it', async (t) => {
  const d = buildDelivery({ accountId: 'acct_1', executionId: 'exec_1', config: { url: 'https://h.example', secret: 'k' }, event: WebhookEvent.STARTED, data: startedData(at), at });
  const later = at.getTime() + 3 * 3600_000;
  t.match(verifyWebhook(d.body, d.headers, { secret: 'k', toleranceSeconds: 7200, nowMs: later }), { ok: false, reason: 'stale' });
  t.equal(verifyWebhook(d.body, d.headers, { secret: 'k', toleranceSeconds: 7200, nowMs: at.getTime() + 3600_000 }).ok, true);
});

t.test('a webhook without a secret goes out unsigned', async (t) => {
  const d = buildDelivery({ accountId: 'acct_1', executionId: 'exec_1', config: { url: 'https://h.example' }, event: WebhookEvent.STARTED, data: startedData(at), at });
  t.notOk('signature' in (JSON.parse(d.body) as object));
  t.notOk('X-Service-Signature' in d.headers);
  t.notOk('webhook-signature' in attemptHeaders(d.id, d.body, null, at.getTime()));
});

/** The Standard Webhooks verification, written from its spec (not from our signer). */
function standardVerify(secret: string, headers: Record<string, string>, body: string, nowSeconds: number): boolean {
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
  const id = headers['webhook-id'];
  const ts = Number(headers['webhook-timestamp']);
  if (id === undefined || Math.abs(nowSeconds - ts) > 300) return false;
  const expected = createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64');
  return (headers['webhook-signature'] ?? '').split(' ').some((entry) => entry === `v1,${expected}`);
}

t.test('the Standard Webhooks headers verify per attempt with a plain secret as UTF-8 key', async (t) => {
  const d = buildDelivery({ accountId: 'acct_1', executionId: 'exec_1', config: { url: 'https://h.example', secret: 'plain-secret' }, event: WebhookEvent.STARTED, data: startedData(at), at });
  const nowMs = at.getTime() + 40 * 60_000; // a retry 40 minutes later is still fresh
  const headers = attemptHeaders(d.id, d.body, 'plain-secret', nowMs);
  t.equal(headers['webhook-id'], d.id);
  t.equal(headers['webhook-timestamp'], String(Math.floor(nowMs / 1000)));
  t.equal(headers['X-Service-Timestamp'], headers['webhook-timestamp']);
  t.ok(standardVerify('plain-secret', headers, d.body, Math.floor(nowMs / 1000)));
  t.ok(standardVerify('whsec_' + Buffer.from('plain-secret').toString('base64'), headers, d.body, Math.floor(nowMs / 1000)), 'as a library would be configured');
});

t.test('a whsec_ secret is used base64-decoded for Standard Webhooks', async (t) => {
  const secret = 'whsec_' + Buffer.from('0123456789abcdef0123456789abcdef').toString('base64');
  const sig = standardWebhooksSignature(secret, 'dlv_1', 1_700_000_000, '{}');
  t.equal(sig, 'v1,' + createHmac('sha256', Buffer.from('0123456789abcdef0123456789abcdef')).update('dlv_1.1700000000.{}').digest('base64'));
});
