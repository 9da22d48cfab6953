/** Reading an A2A agent card and mapping A2A answers (v0.3 wire shapes) onto agent outcomes. */
import t from 'tap';
import { readCard } from '../../src/logic/a2a/card.js';
import { readA2aResult } from '../../src/logic/a2a/task-outcome.js';

const CARD_URL = 'https://agent.example.com/.well-known/agent-card.json';
const text = (value: string) => ({ kind: 'text', text: value });

t.test('a v0.3 card gives its name, JSON-RPC url and skills; a relative url resolves against the card', async (t) => {
  const card = readCard({ name: ' Weather ', description: 'd', url: '/a2a', preferredTransport: 'JSONRPC', skills: [{ id: 's', name: 'Forecast', tags: ['w'], examples: ['x'] }, 42] }, CARD_URL);
  t.same(card, { name: 'Weather', description: 'd', endpoint: 'https://agent.example.com/a2a', skills: [{ id: 's', name: 'Forecast', description: '', tags: ['w'], examples: ['x'] }] });
});

t.test('a card preferring another transport is read through its JSONRPC interface, v0.3 or v1.0', async (t) => {
  const v03 = readCard({ name: 'A', url: 'https://a/grpc', preferredTransport: 'GRPC', additionalInterfaces: [{ url: 'https://a/rpc', transport: 'JSONRPC' }] }, CARD_URL);
  t.equal(typeof v03 === 'string' ? v03 : v03.endpoint, 'https://a/rpc');
  const v10 = readCard({ name: 'A', supportedInterfaces: [{ url: 'https://a/v1', protocolBinding: 'JSONRPC' }] }, CARD_URL);
  t.equal(typeof v10 === 'string' ? v10 : v10.endpoint, 'https://a/v1');
});

t.test('a card without a name or a JSON-RPC endpoint is refused with the reason', async (t) => {
  t.match(readCard({ url: 'https://a/rpc' }, CARD_URL), /no 'name'/);
  t.match(readCard({ name: 'A', url: 'https://a/grpc', preferredTransport: 'GRPC' }, CARD_URL), /no JSON-RPC endpoint/);
  t.match(readCard([], CARD_URL), /not a JSON object/);
});

t.test('a completed task answers with its artifacts\' text and data parts', async (t) => {
  const reading = readA2aResult({
    kind: 'task',
    id: 't1',
    contextId: 'c1',
    status: { state: 'completed' },
    artifacts: [{ parts: [text('sunny'), { kind: 'data', data: { c: 21 } }] }, { parts: [text('warm')] }],
  });
  t.same(reading, { kind: 'answer', result: { answer: 'sunny\nwarm', data: { c: 21 }, a2a: { kind: 'task', taskId: 't1', contextId: 'c1' } } });
});

t.test('a completed task without artifacts answers with its status message; a message answers with its parts', async (t) => {
  t.match(readA2aResult({ kind: 'task', id: 't', status: { state: 'completed', message: { parts: [text('done')] } } }), { kind: 'answer', result: { answer: 'done' } });
  t.match(readA2aResult({ kind: 'message', messageId: 'm', parts: [text('hi')] }), { kind: 'answer', result: { answer: 'hi', a2a: { kind: 'message' } } });
});

t.test('failed, rejected and canceled tasks fail with their status message', async (t) => {
  for (const state of ['failed', 'rejected', 'canceled']) {
    t.same(readA2aResult({ kind: 'task', id: 't', status: { state, message: { parts: [text('nope')] } } }), { kind: 'failed', message: `the A2A task ended ${state}: nope` });
  }
});

t.test('a task asking for input fails, saying Baton cannot give it', async (t) => {
  t.match(readA2aResult({ kind: 'task', id: 't', status: { state: 'input-required', message: { parts: [text('which city?')] } } }), {
    kind: 'failed',
    message: /asked for more input \(input-required\), which Baton cannot give within one call: which city\?/,
  });
});

t.test('a task still working is to be asked for again; anything else is invalid', async (t) => {
  t.same(readA2aResult({ kind: 'task', id: 't9', status: { state: 'working' } }), { kind: 'running', taskId: 't9' });
  t.match(readA2aResult({ kind: 'thing' }), { kind: 'invalid' });
  t.match(readA2aResult(null), { kind: 'invalid' });
});
