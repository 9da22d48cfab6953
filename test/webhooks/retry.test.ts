import t from 'tap';
import { classifyStatus, DEFAULT_RETRY_POLICY, parseRetryAfter, retryDelayMs } from '../../src/logic/webhooks/retry.js';

t.test('2xx is delivered; 5xx, 408 and 429 retry; other statuses are final', async (t) => {
  t.equal(classifyStatus(200), 'delivered');
  t.equal(classifyStatus(204), 'delivered');
  for (const s of [500, 502, 503, 408, 429]) t.equal(classifyStatus(s), 'retry', String(s));
  for (const s of [301, 400, 401, 404, 410, 422]) t.equal(classifyStatus(s), 'final', String(s));
});

t.test('backoff starts near a second and eight attempts span about an hour', async (t) => {
  const mid = () => 0.5;
  t.equal(retryDelayMs(1, DEFAULT_RETRY_POLICY, mid), 1_000);
  let total = 0;
  for (let attempt = 1; attempt < DEFAULT_RETRY_POLICY.maxAttempts; attempt++) total += retryDelayMs(attempt, DEFAULT_RETRY_POLICY, mid);
  t.ok(total > 50 * 60_000 && total < 70 * 60_000, `total ${total} ms`);
});

t.test('jitter spreads each gap within its band', async (t) => {
  t.equal(retryDelayMs(2, DEFAULT_RETRY_POLICY, () => 0), Math.round(3_700 * 0.8));
  t.equal(retryDelayMs(2, DEFAULT_RETRY_POLICY, () => 0.999999), 4_440, 'just under 1.2x');
});

t.test('a Retry-After longer than the backoff stretches the gap', async (t) => {
  t.equal(retryDelayMs(1, DEFAULT_RETRY_POLICY, () => 0.5, 30), 30_000);
  t.equal(retryDelayMs(1, DEFAULT_RETRY_POLICY, () => 0.5, 0), 1_000);
  t.equal(parseRetryAfter('120', 0), 120);
  t.equal(parseRetryAfter('Thu, 01 Jan 1970 00:01:00 GMT', 0), 60);
  t.equal(parseRetryAfter('soon', 0), undefined);
});
