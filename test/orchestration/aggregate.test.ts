import t from 'tap';
import {
  aggregate,
  AGGREGATION_KEY,
  customAggregatorInput,
  fromCustomAggregator,
  summaryOf,
  type FieldVote,
} from '../../src/logic/orchestration/aggregate.js';
import type { AgentRunResult } from '../../src/domain/orchestration.js';

const ok = (agentId: string, output: Record<string, unknown>, confidence = 0.8): AgentRunResult => ({ agentId, ok: true, output, confidence });
const fail = (agentId: string, message = 'boom', confidence = 0.9): AgentRunResult => ({
  agentId,
  ok: false,
  error: { code: 'AGENT_ERROR', message },
  confidence,
});

t.test('merge keys every output by agent id and joins the summaries', async (t) => {
  const result = aggregate('merge', [ok('a', { summary: 'Alpha.' }), ok('b', { answer: 'Beta.' })]);
  t.same(result.details, { a: { summary: 'Alpha.' }, b: { answer: 'Beta.' } });
  t.equal(result.summary, 'a: Alpha.\n\nb: Beta.');
});

t.test('merge of one agent uses its summary as is', async (t) => {
  t.equal(aggregate('merge', [ok('a', { text: 'Only.' })]).summary, 'Only.');
});

t.test('merge lists a failed agent under its id with its error and says so in the summary', async (t) => {
  const result = aggregate('merge', [ok('a', { summary: 'Alpha.' }), fail('b', 'timed out')]);
  t.same(result.details.b, { error: { code: 'AGENT_ERROR', message: 'timed out' } });
  t.match(result.summary, /1 of 2 agents failed: b/);
});

t.test('an output without a text field is summarised as JSON', async (t) => {
  t.equal(summaryOf({ score: 3 }), '{"score":3}');
});

t.test('best returns the output of the most confident agent that succeeded', async (t) => {
  const result = aggregate('best', [ok('a', { summary: 'A' }, 0.7), ok('b', { summary: 'B' }, 0.9), fail('c', 'x', 0.99)]);
  t.equal(result.summary, 'B');
  t.same(result.details.b, { summary: 'B' });
  t.notOk('a' in result.details, 'a losing answer is left out');
  t.same(result.details.c, { error: { code: 'AGENT_ERROR', message: 'x' } });
  t.match(result.details[AGGREGATION_KEY], { strategy: 'best', agentId: 'b', confidence: 0.9 });
});

t.test('best breaks a confidence tie by selection order', async (t) => {
  t.equal(aggregate('best', [ok('a', { summary: 'A' }, 0.8), ok('b', { summary: 'B' }, 0.8)]).summary, 'A');
});

t.test('vote takes the value most agents returned for each field, with the tally', async (t) => {
  const result = aggregate('vote', [
    ok('a', { label: 'spam', score: 1 }),
    ok('b', { label: 'spam', score: 2 }),
    ok('c', { label: 'ham', score: 2 }),
  ]);
  const aggregation = result.details[AGGREGATION_KEY] as { agents: Record<string, unknown>; tally: Record<string, FieldVote> };
  t.same(Object.keys(result.details), ['label', 'score', AGGREGATION_KEY], 'the voted values come first, at the top of details');
  t.equal(result.details.label, 'spam');
  t.equal(result.details.score, 2);
  t.same(aggregation.agents, { a: { label: 'spam', score: 1 }, b: { label: 'spam', score: 2 }, c: { label: 'ham', score: 2 } });
  t.same(aggregation.tally.label?.tally, [
    { value: 'spam', votes: 2, confidence: 1.6, agents: ['a', 'b'] },
    { value: 'ham', votes: 1, confidence: 0.8, agents: ['c'] },
  ]);
  t.equal(aggregation.tally.label?.majority, true);
  t.equal(aggregation.tally.label?.tieBrokenBy, null);
  t.match(result.summary, /label = "spam" \(2\/3\)/);
});

t.test('vote breaks a tie by the confidence of the agents behind each value', async (t) => {
  const result = aggregate('vote', [ok('a', { label: 'spam' }, 0.6), ok('b', { label: 'ham' }, 0.9)]);
  const tally = (result.details[AGGREGATION_KEY] as { tally: Record<string, FieldVote> }).tally;
  t.equal(tally.label?.winner, 'ham');
  t.equal(tally.label?.tieBrokenBy, 'confidence');
  t.equal(tally.label?.majority, false);
});

t.test('vote breaks a tie of equal confidence by selection order', async (t) => {
  const result = aggregate('vote', [ok('a', { label: 'spam' }, 0.8), ok('b', { label: 'ham' }, 0.8)]);
  const tally = (result.details[AGGREGATION_KEY] as { tally: Record<string, FieldVote> }).tally;
  t.equal(tally.label?.winner, 'spam');
  t.equal(tally.label?.tieBrokenBy, 'selection_order');
});

t.test('vote treats objects with the same content in any key order as one value', async (t) => {
  const result = aggregate('vote', [ok('a', { tags: { x: 1, y: 2 } }), ok('b', { tags: { y: 2, x: 1 } }), ok('c', { tags: { x: 9 } })]);
  const tally = (result.details[AGGREGATION_KEY] as { tally: Record<string, FieldVote> }).tally;
  t.equal(tally.tags?.tally[0]?.votes, 2);
});

t.test('vote counts only the agents that returned a field', async (t) => {
  const result = aggregate('vote', [ok('a', { label: 'x', extra: 1 }), ok('b', { label: 'x' })]);
  const tally = (result.details[AGGREGATION_KEY] as { tally: Record<string, FieldVote> }).tally;
  t.equal(tally.extra?.voters, 1);
  t.equal(tally.extra?.majority, true);
});

t.test('vote uses the winning summary field as the summary', async (t) => {
  const result = aggregate('vote', [ok('a', { summary: 'Yes' }), ok('b', { summary: 'Yes' }), ok('c', { summary: 'No' })]);
  t.equal(result.summary, 'Yes');
});

t.test('vote ignores failed agents but lists them beside the tally', async (t) => {
  const result = aggregate('vote', [ok('a', { label: 'x' }), fail('b')]);
  t.same(result.details, {
    label: 'x',
    [AGGREGATION_KEY]: {
      strategy: 'vote',
      voters: 1,
      agents: { a: { label: 'x' }, b: { error: { code: 'AGENT_ERROR', message: 'boom' } } },
      tally: { label: { winner: 'x', voters: 1, majority: true, tieBrokenBy: null, tally: [{ value: 'x', votes: 1, confidence: 0.8, agents: ['a'] }] } },
    },
  });
});

t.test('vote keeps a field named like the reserved key out of the top of details', async (t) => {
  const result = aggregate('vote', [ok('a', { _aggregation: 'sneaky', label: 'x' }), ok('b', { label: 'x' })]);
  t.equal(result.details.label, 'x');
  t.match(result.details[AGGREGATION_KEY], { strategy: 'vote', tally: { _aggregation: { winner: 'sneaky' } } });
});

t.test('a voted field named __proto__ stays an ordinary key in details', async (t) => {
  const output = JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
  const result = aggregate('vote', [ok('a', output), ok('b', output)]);
  t.ok(Object.hasOwn(result.details, '__proto__'));
  t.equal(Object.getPrototypeOf(result.details), Object.prototype);
});

t.test('custom gives the aggregator every output, every failure and the query', async (t) => {
  const input = customAggregatorInput('Compare prices', [ok('a', { summary: 'A' }, 0.7), fail('b', 'down', 0.6)]);
  t.match(input.prompt, /Compare prices/);
  t.same(input.context, {
    query: 'Compare prices',
    outputs: { a: { summary: 'A' } },
    failures: { b: { code: 'AGENT_ERROR', message: 'down' } },
    confidence: { a: 0.7, b: 0.6 },
  });
});

t.test('custom takes its summary from the aggregator and keeps its whole answer', async (t) => {
  const result = fromCustomAggregator('judge', { summary: 'A wins', winner: 'a' }, [ok('a', { summary: 'A' }), ok('b', { summary: 'B' })]);
  t.equal(result.summary, 'A wins');
  t.same(result.details[AGGREGATION_KEY], { strategy: 'custom', agentId: 'judge', output: { summary: 'A wins', winner: 'a' } });
  t.same(result.details.a, { summary: 'A' });
});

t.test('an agent id like __proto__ stays an ordinary key in details', async (t) => {
  const result = aggregate('merge', [ok('__proto__', { summary: 'P' })]);
  t.ok(Object.hasOwn(result.details, '__proto__'));
  t.equal(Object.getPrototypeOf(result.details), Object.prototype);
});
