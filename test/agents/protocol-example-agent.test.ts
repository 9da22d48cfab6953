import t from 'tap';
import { createAgentClient } from '../../src/adapters/agent-http/client.js';
import type { ExecuteRequest } from '../../src/schemas/agent-protocol.js';
import { startExampleAgent } from '../helpers/example-agent.js';

const request: ExecuteRequest = {
  input: { prompt: 'The cat sat. The cat slept!', context: {} },
  metadata: { requestId: 'req_ex', userId: 'acct_ex', timeout: 5_000 },
};

t.test('the example agent answers health, info, execute and streaming execute per the protocol', async (t) => {
  const url = await startExampleAgent(t);
  const client = createAgentClient({ allowPrivate: true });
  t.teardown(() => client.close());

  const health = await client.getHealth(url);
  t.equal(health.ok && health.healthy, true, 'healthy');
  const info = await client.getInfo(url);
  t.equal(info.ok && info.info.id, 'example-word-stats', 'info validates');

  const outcome = await client.execute(url, request);
  t.equal(outcome.ok, true, 'execute validates');
  if (outcome.ok) t.match(outcome.result, { words: 6, sentences: 2 });

  const chunks: string[] = [];
  const streamed = await client.executeStreaming(url, request, (text) => chunks.push(text));
  t.equal(streamed.ok && streamed.streamed, true, 'streamed answer validates');
  if (streamed.ok) t.equal(chunks.join(''), streamed.result.answer);
});

t.test('the example agent gives up with a failure body when metadata.timeout is too short', async (t) => {
  const url = await startExampleAgent(t);
  const client = createAgentClient({ allowPrivate: true });
  t.teardown(() => client.close());
  // The agent's 50 ms of work cannot fit in 10 ms; give the client room to read its answer.
  const outcome = await client.execute(url, { ...request, metadata: { ...request.metadata, timeout: 10 } }, { timeoutMs: 2_000 });
  t.equal(outcome.ok, false);
  if (outcome.ok) return;
  t.equal(outcome.kind, 'agent_error');
  t.match(outcome.message, /timed out after 10 ms/);
  t.equal(outcome.cost, 0);
});
