/**
 * Admission control end to end: with a small backlog bound, a flood of submissions is partly
 * refused with 503 OVERLOADED and Retry-After before anything is recorded, and every execution
 * that was accepted with 202 completes. Status reads keep being served meanwhile.
 */
import t from 'tap';
import { registerAgents } from '../helpers/agents.js';
import { waitForExecutionEnd } from '../helpers/executions.js';
import { api, createAccountWithKey, startServer } from '../helpers/server.js';

const server = await startServer(t, { mode: 'embedded', env: { BATON_MAX_BACKLOG: '4' } });

type Json = Record<string, unknown>;

const waitForEnd = (key: string, id: string): Promise<Json> => waitForExecutionEnd(server, key, id, 60_000);

t.test('a flood past the backlog bound gets 503 OVERLOADED + Retry-After, and every accepted execution completes', async (t) => {
  const { key } = await createAccountWithKey(server, 'ENTERPRISE');
  await registerAgents(
    server,
    key,
    [{ info: { id: 'slowish', name: 'Slowish', description: 'answers after a while', capabilities: ['cap-slowish'], pricing: { model: 'per_execution', basePrice: 0.01 } }, output: { ok: true }, latencyMs: 400 }],
    t.teardown.bind(t),
  );
  const body = { query: 'do slowish work', selectionCriteria: { requiredCapabilities: ['cap-slowish'], minConfidence: 0, maxAgents: 1 } };
  const answers = await Promise.all(Array.from({ length: 30 }, () => api(server, 'POST', '/v1/orchestrate', { key, body })));
  const accepted = answers.filter((a) => a.status === 202);
  const refused = answers.filter((a) => a.status === 503);
  t.equal(accepted.length + refused.length, answers.length, `only 202 or 503: ${answers.map((a) => a.status).join(',')}`);
  t.ok(accepted.length >= 1, `some accepted (${accepted.length})`);
  t.ok(accepted.length <= 4, `at most the backlog bound accepted at once (${accepted.length})`);
  t.ok(refused.length >= 1, `some refused (${refused.length})`);
  const first = refused[0]!;
  t.equal(first.body.error, 'OVERLOADED');
  t.equal(first.body.reason, 'backlog');
  t.match(first.headers.get('retry-after'), /^\d+$/, 'Retry-After in seconds');
  t.type(first.body.retryAfter, 'number');
  // Reads are served while submissions are refused.
  const read = await api(server, 'GET', `/v1/executions/${accepted[0]!.body.executionId as string}`, { key });
  t.equal(read.status, 200);
  const ends = await Promise.all(accepted.map((a) => waitForEnd(key, a.body.executionId as string)));
  t.same(ends.map((e) => e.status), accepted.map(() => 'COMPLETED'), 'every accepted execution completed');
  // Once the backlog has drained, submissions are accepted again.
  const again = await api(server, 'POST', '/v1/orchestrate', { key, body });
  t.equal(again.status, 202, again.text);
  t.equal((await waitForEnd(key, again.body.executionId as string)).status, 'COMPLETED');
});
