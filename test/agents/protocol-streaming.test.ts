import fc from 'fast-check';
import t from 'tap';
import type { ExecuteRequest } from '../../src/schemas/agent-protocol.js';
import { SseDecoder } from '../../src/adapters/agent-http/sse.js';
import { mockAgentWithClient } from '../helpers/agents.js';

const request: ExecuteRequest = {
  input: { prompt: 'Write a haiku', context: {} },
  metadata: { requestId: 'req_sse', userId: 'acct_1', timeout: 5_000 },
};

t.test('streamed chunks reach the listener in order and the final event is the outcome', async (t) => {
  const chunks = ['An old ', 'silent pond— ', 'a frog ', 'jumps in'];
  const { agent, client } = await mockAgentWithClient(t, { stream: { chunks, chunkDelayMs: 5 }, cost: 0.02 });
  const seen: string[] = [];
  const outcome = await client.executeStreaming(agent.url, request, (text) => seen.push(text));
  t.same(seen, chunks);
  t.equal(outcome.ok, true);
  if (!outcome.ok) return;
  t.equal(outcome.streamed, true);
  t.same(outcome.result, { answer: chunks.join('') });
  t.equal(outcome.metadata.cost, 0.02);
});

t.test('chunks are forwarded while the stream is still open', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { stream: { chunks: ['first', 'second'], chunkDelayMs: 300 } });
  let firstAtMs = 0;
  const startedMs = Date.now();
  const outcome = await client.executeStreaming(agent.url, request, (text) => {
    if (text === 'first') firstAtMs = Date.now() - startedMs;
  });
  t.equal(outcome.ok, true);
  t.ok(firstAtMs > 0 && firstAtMs < 250, `first chunk after ${firstAtMs} ms, before the stream ended`);
});

t.test('the streaming call asks the agent for an event stream', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { stream: { chunks: ['x'] } });
  await client.executeStreaming(agent.url, request, () => undefined);
  t.match(agent.requests[0]?.headers.accept, /text\/event-stream/);
});

t.test('a stream that ends without a final event is invalid_shape, after its chunks were forwarded', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { stream: { chunks: ['partial'], end: 'none' } });
  const seen: string[] = [];
  const outcome = await client.executeStreaming(agent.url, request, (text) => seen.push(text));
  t.same(seen, ['partial']);
  t.equal(outcome.ok, false);
  if (!outcome.ok) t.equal(outcome.kind, 'invalid_shape');
});

t.test('a stream whose final event is a failure body is an agent_error with its cost', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { stream: { chunks: ['a'], end: 'error' }, cost: 0.007 });
  const outcome = await client.executeStreaming(agent.url, request, () => undefined);
  t.equal(outcome.ok, false);
  if (outcome.ok) return;
  t.equal(outcome.kind, 'agent_error');
  t.equal(outcome.cost, 0.007);
});

t.test('a stream longer than the cap is too_large', async (t) => {
  const big = 'y'.repeat(10_000);
  const { agent, client } = await mockAgentWithClient(t, { stream: { chunks: Array.from({ length: 20 }, () => big) } });
  const outcome = await client.executeStreaming(agent.url, request, () => undefined, { maxBytes: 50_000 });
  t.equal(outcome.ok, false);
  if (!outcome.ok) t.equal(outcome.kind, 'too_large');
});

t.test('a stream that outlives metadata.timeout is a timeout', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { stream: { chunks: ['a', 'b', 'c'], chunkDelayMs: 200 } });
  const outcome = await client.executeStreaming(agent.url, { ...request, metadata: { ...request.metadata, timeout: 250 } }, () => undefined);
  t.equal(outcome.ok, false);
  if (!outcome.ok) t.equal(outcome.kind, 'timeout');
});

t.test('a listener that throws ends the call as aborted instead of throwing', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { stream: { chunks: ['a', 'b'] } });
  const outcome = await client.executeStreaming(agent.url, request, () => {
    throw new Error('listener bug');
  });
  t.equal(outcome.ok, false);
  if (outcome.ok) return;
  t.equal(outcome.kind, 'aborted');
  t.match(outcome.message, /listener bug/);
});

t.test('plain execute accepts a streamed answer and returns its final result', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { stream: { chunks: ['x', 'y'] } });
  const outcome = await client.execute(agent.url, request);
  t.equal(outcome.ok, true);
  if (outcome.ok) t.same(outcome.result, { answer: 'xy' });
});

t.test('executeStreaming against an agent that answers JSON returns the JSON outcome', async (t) => {
  const { agent, client } = await mockAgentWithClient(t, { output: { answer: 'plain' } });
  const seen: string[] = [];
  const outcome = await client.executeStreaming(agent.url, request, (text) => seen.push(text));
  t.same(seen, []);
  t.equal(outcome.ok, true);
  if (outcome.ok) t.equal(outcome.streamed, false);
});

function decodeAll(pieces: readonly string[]): string[] {
  const decoder = new SseDecoder();
  const events: string[] = [];
  const onData = (data: string): boolean => events.push(data) > 0;
  for (const piece of pieces) decoder.push(piece, onData);
  decoder.finish(onData);
  return events;
}

t.test('the SSE decoder handles LF, CRLF and CR line ends, comments, other fields and multi-line data', async (t) => {
  const text = ': comment\nevent: x\ndata: one\n\ndata:two\r\ndata: lines\r\n\r\nid: 3\rdata: three\r\rdata: unterminated';
  t.same(decodeAll([text]), ['one', 'two\nlines', 'three']);
});

t.test('the SSE decoder yields the same events however the stream is split', async (t) => {
  const eventData = fc.array(fc.string({ unit: 'grapheme' }).map((s) => s.replace(/[\r\n]/g, ' ')), { maxLength: 8 });
  const lineEnd = fc.constantFrom('\n', '\r\n', '\r');
  t.doesNotThrow(() => fc.assert(
    fc.property(eventData, lineEnd, fc.array(fc.nat(), { maxLength: 10 }), (events, eol, cuts) => {
      const text = events.map((data) => `data: ${data}${eol}${eol}`).join('');
      const points = [...new Set(cuts.map((c) => (text.length === 0 ? 0 : c % text.length)))].sort((a, b) => a - b);
      const pieces: string[] = [];
      let last = 0;
      for (const point of points) {
        pieces.push(text.slice(last, point));
        last = point;
      }
      pieces.push(text.slice(last));
      // An event whose data is empty is not dispatched (SSE spec, "dispatch the event").
      const expected = events.filter((data) => data !== '');
      return JSON.stringify(decodeAll(pieces)) === JSON.stringify(expected);
    }),
    { numRuns: 300 },
  ));
});
