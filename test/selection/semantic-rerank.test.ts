import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildCatalogIndex, selectAgents } from '../../src/logic/selection/index.js';
import type { AgentRuntimeStats, CatalogAgent, SelectionRequest } from '../../src/logic/selection/index.js';
import { createSemanticReranker, loadMiniLm } from '../../src/logic/selection/semantic-rerank.js';
import type { SentenceEncoder } from '../../src/logic/selection/semantic-rerank.js';

const AGENTS: CatalogAgent[] = [
  { id: 'review', name: 'Code Reviewer', description: 'Reviews pull requests and code changes for bugs and style problems.', vertical: 'engineering', capabilities: ['code-review'] },
  { id: 'tests', name: 'Test Writer', description: 'Writes unit tests for code changes and pull requests.', vertical: 'engineering', capabilities: ['test-generation'] },
  { id: 'flights', name: 'Flight Finder', description: 'Finds cheap flights between airports.', vertical: 'travel', capabilities: ['flight-search'] },
];
const STATS = new Map<string, AgentRuntimeStats>(AGENTS.map((a) => [a.id, { healthy: true, circuitOpen: false, successRate: 1 }]));
const REQUEST: SelectionRequest = { query: 'review the code changes in my pull request', selectionCriteria: { minConfidence: 0 } };
const index = buildCatalogIndex(AGENTS);
const staticIds = selectAgents(index, STATS, REQUEST).selected.map((s) => s.agent.id);

/** Unit vectors: the text's position on a "review" axis and a "tests" axis, by word counts. */
const wordAxes: SentenceEncoder = {
  embed: (texts) =>
    Promise.resolve(
      texts.map((text) => {
        const v = [/review/gi, /test/gi, /flight/gi].map((re) => (text.match(re) ?? []).length + 0.01);
        const norm = Math.hypot(...v);
        return v.map((x) => x / norm);
      }),
    ),
};

t.test('the static selection has more than one candidate, so there is something to rerank', async (t) => {
  t.ok(staticIds.length >= 2, JSON.stringify(staticIds));
});

t.test('switched on, the encoder reorders and prunes the static candidates', async (t) => {
  t.equal(staticIds[0], 'review');
  // An encoder that finds the request and the test writer alike, and nothing else.
  const likesTests: SentenceEncoder = {
    embed: (texts) => Promise.resolve(texts.map((text) => (text === REQUEST.query || text.startsWith('Test Writer') ? [1, 0] : [0, 1]))),
  };
  const reranker = createSemanticReranker({ loadEncoder: () => Promise.resolve(likesTests), budgetMs: 1000, params: { candidates: 5, margin: 0, weight: 1 } });
  const outcome = await reranker.rerank(index, STATS, REQUEST);
  t.equal(outcome.reranked, true);
  t.same(outcome.result.selected.map((s) => s.agent.id), ['tests']);
  const withWordAxes = await createSemanticReranker({ loadEncoder: () => Promise.resolve(wordAxes), budgetMs: 1000 }).rerank(index, STATS, REQUEST);
  t.equal(withWordAxes.result.selected[0]?.agent.id, 'review');
  t.notOk(withWordAxes.result.selected.some((s) => s.agent.id === 'flights'));
});

t.test('agents are encoded once, the request every time', async (t) => {
  const seen: string[] = [];
  const counting: SentenceEncoder = { embed: (texts) => (seen.push(...texts), wordAxes.embed(texts)) };
  const reranker = createSemanticReranker({ loadEncoder: () => Promise.resolve(counting), budgetMs: 1000 });
  await reranker.rerank(index, STATS, REQUEST);
  const first = seen.length;
  await reranker.rerank(index, STATS, REQUEST);
  t.equal(seen.length, first + 1);
  t.equal(seen.at(-1), REQUEST.query);
});

t.test('an encoder that cannot be loaded leaves the static selection, and is reported once', async (t) => {
  const errors: Error[] = [];
  const reranker = createSemanticReranker({
    loadEncoder: () => Promise.reject(new Error('no model here')),
    budgetMs: 1000,
    onUnavailable: (e) => errors.push(e),
  });
  for (let i = 0; i < 3; i += 1) {
    const outcome = await reranker.rerank(index, STATS, REQUEST);
    t.equal(outcome.reranked, false);
    t.match(outcome, { reason: 'unavailable' });
    t.same(outcome.result.selected.map((s) => s.agent.id), staticIds);
  }
  t.equal(errors.length, 1);
  t.match(errors[0]?.message, /no model here/);
});

t.test('a rerank over its time budget returns the static selection', async (t) => {
  const slow: SentenceEncoder = { embed: async (texts) => (await sleep(60), wordAxes.embed(texts)) };
  const reranker = createSemanticReranker({ loadEncoder: () => Promise.resolve(slow), budgetMs: 20 });
  const outcome = await reranker.rerank(index, STATS, REQUEST);
  t.match(outcome, { reranked: false, reason: 'budget' });
  t.same(outcome.result.selected.map((s) => s.agent.id), staticIds);
});

t.test('an encoder that throws mid-request returns the static selection', async (t) => {
  const broken: SentenceEncoder = { embed: () => Promise.reject(new Error('engine crashed')) };
  const outcome = await createSemanticReranker({ loadEncoder: () => Promise.resolve(broken), budgetMs: 1000 }).rerank(index, STATS, REQUEST);
  t.match(outcome, { reranked: false, reason: 'failed' });
  t.same(outcome.result.selected.map((s) => s.agent.id), staticIds);
});

t.test('the shipped MiniLM encoder loads and puts the code reviewer first', async (t) => {
  const reranker = createSemanticReranker({ loadEncoder: loadMiniLm, budgetMs: 10_000 });
  const outcome = await reranker.rerank(index, STATS, REQUEST);
  t.equal(outcome.reranked, true);
  t.equal(outcome.result.selected[0]?.agent.id, 'review');
  t.notOk(outcome.result.selected.some((s) => s.agent.id === 'flights'));
});
