/**
 * AgentDirectory over a real SQL store (PGlite, and Postgres when DATABASE_URL is set) and
 * coordination shared like workers: scopes, selection reading the actors' health and circuit,
 * and a change on one worker visible on another once `changed` resolves.
 */
import t from 'tap';
import { silentLogger } from '../../src/actors/kit/index.js';
import { startActorSystem } from '../../src/actors/root-supervisor.js';
import { spawnAgentRegistry } from '../../src/actors/agent-registry-actor.js';
import { startAgentDirectory, type AgentDirectory } from '../../src/services/agents/directory.js';
import type { ExecuteOutcome, HealthOutcome } from '../../src/ports/agent-outcomes.js';
import type { Coordination } from '../../src/ports/coordination.js';
import type { DurableStores } from '../../src/ports/durable.js';
import type { NewAgent } from '../../src/domain/agents.js';
import { createSemanticReranker, type SemanticReranker } from '../../src/logic/selection/semantic-rerank.js';
import { settle } from '../actors/fixtures/helpers.js';
import { durableKinds, newAccount, openTestDurable, openTestWorkers } from '../helpers/stores.js';

function agent(id: string, owner: string | null, overrides: Partial<NewAgent> = {}): NewAgent {
  return {
    id,
    ownerAccountId: owner,
    name: 'Invoice Parser',
    description: 'Reads supplier invoices and returns line items and totals.',
    url: 'http://127.0.0.1:9',
    vertical: 'finance',
    capabilities: ['invoice-extraction'],
    pricingModel: 'per_execution',
    maxConcurrency: 16,
    basePriceMicroUsd: 40_000,
    timeoutMs: 30_000,
    examples: [],
    ...overrides,
  };
}

/** A client whose every call fails and whose health is whatever `health.outcome` says. */
function failingClient() {
  const health: { outcome: HealthOutcome } = {
    outcome: { ok: true, health: { status: 'healthy', timestamp: 0 }, healthy: true, status: 200, durationMs: 1 },
  };
  const fail = (): Promise<ExecuteOutcome> => Promise.resolve({ ok: false, kind: 'refused', message: 'ECONNREFUSED', durationMs: 1 });
  return { health, client: { execute: fail, executeStreaming: fail, getHealth: () => Promise.resolve(health.outcome) } };
}

async function directoryOn(
  t: { teardown(fn: () => unknown): void },
  stores: DurableStores,
  coordination: Coordination,
  client = failingClient().client,
  reranker?: SemanticReranker,
): Promise<AgentDirectory> {
  const runtime = startActorSystem({ logger: silentLogger });
  const directory = await startAgentDirectory({
    store: stores.agents,
    coordination,
    client,
    registry: spawnAgentRegistry(runtime, silentLogger),
    logger: silentLogger,
    resyncIntervalMs: 0,
    tuning: { healthIntervalMs: 60_000, healthJitterMs: 0, failureThreshold: 2 },
    ...(reranker === undefined ? {} : { reranker }),
  });
  t.teardown(async () => {
    await directory.stop();
    await runtime.stop();
  });
  return directory;
}

const invoiceQuery = { query: 'extract the line items from this supplier invoice' };

for (const kind of durableKinds()) {
  t.test(kind, async (t) => {
    const stores = await openTestDurable(t, kind);
    const [w1, w2] = await openTestWorkers(t, 'memory', 2);
    if (w1 === undefined || w2 === undefined) throw new Error('two workers expected');

    t.test('an agent registered through one worker is selectable on another once changed() resolves', async (t) => {
      const one = await directoryOn(t, stores, w1);
      const two = await directoryOn(t, stores, w2);
      await stores.agents.create(agent('cross-worker', null));
      await one.changed(null, 'cross-worker');
      t.same(two.select(null, invoiceQuery).selected.map((s) => s.agent.id), ['cross-worker']);
      await stores.agents.delete(null, 'cross-worker');
      await two.changed(null, 'cross-worker');
      t.same(one.select(null, invoiceQuery).selected, []);
    });

    t.test('selection sees global agents and the account own ones, never another account', async (t) => {
      const a = await stores.accounts.create(newAccount());
      const b = await stores.accounts.create(newAccount());
      const directory = await directoryOn(t, stores, w1);
      await stores.agents.create(agent('scope-global', null, { vertical: 'scope' }));
      await stores.agents.create(agent('scope-a', a.id, { vertical: 'scope' }));
      await directory.changed(null, 'scope-global');
      await directory.changed(a.id, 'scope-a');
      const request = { ...invoiceQuery, selectionCriteria: { verticals: ['scope'], minConfidence: 0 } };
      t.same(new Set(directory.select(a.id, request).selected.map((s) => s.agent.id)), new Set(['scope-global', 'scope-a']));
      t.same(directory.select(b.id, request).selected.map((s) => s.agent.id), ['scope-global']);
      t.equal(directory.visible(b.id, 'scope-a'), undefined);
      t.equal(directory.visible(a.id, 'scope-a')?.ownerAccountId, a.id);
    });

    t.test('selection for a request goes through the semantic reranker when one is configured', async (t) => {
      // An encoder that finds the request like the second parser only.
      const reranker = createSemanticReranker({
        budgetMs: 1000,
        loadEncoder: () =>
          Promise.resolve({
            embed: (texts: string[]) => Promise.resolve(texts.map((x) => (x === invoiceQuery.query || x.startsWith('Invoice Parser Two') ? [1, 0] : [0, 1]))),
          }),
      });
      const plain = await directoryOn(t, stores, w1);
      const reranked = await directoryOn(t, stores, w1, failingClient().client, reranker);
      await stores.agents.create(agent('rerank-one', null, { vertical: 'rerank' }));
      await stores.agents.create(agent('rerank-two', null, { vertical: 'rerank', name: 'Invoice Parser Two' }));
      await plain.changed(null, 'rerank-one');
      await plain.changed(null, 'rerank-two');
      const request = { ...invoiceQuery, selectionCriteria: { verticals: ['rerank'], minConfidence: 0 } };
      t.same(new Set(plain.select(null, request).selected.map((s) => s.agent.id)), new Set(['rerank-one', 'rerank-two']));
      t.same(new Set((await plain.selectForRequest(null, request)).selected.map((s) => s.agent.id)), new Set(['rerank-one', 'rerank-two']));
      t.same((await reranked.selectForRequest(null, request)).selected.map((s) => s.agent.id), ['rerank-two']);
    });

    t.test('an agent whose circuit opened is not selected', async (t) => {
      const directory = await directoryOn(t, stores, w1);
      await stores.agents.create(agent('breaks', null, { vertical: 'breaker' }));
      await directory.changed(null, 'breaks');
      const request = { ...invoiceQuery, selectionCriteria: { verticals: ['breaker'] } };
      t.equal(directory.select(null, request).selected.length, 1);
      for (let i = 0; i < 2; i++) t.match(await directory.execute(null, 'breaks', { prompt: 'x', context: {}, requestId: 'r', userId: 'u' }), { kind: 'refused' });
      await settle();
      t.equal(directory.stats(null, 'breaks')?.circuit, 'open');
      t.equal(directory.select(null, request).selected.length, 0);
      const preview = directory.preview(null, request);
      t.equal(preview.candidates.find((c) => c.agentId === 'breaks')?.status, 'circuit_open');
    });

    t.test('an agent that fails its health polls is not selected', async (t) => {
      const { client, health } = failingClient();
      health.outcome = { ok: false, kind: 'refused', message: 'down', durationMs: 1 };
      const runtime = startActorSystem({ logger: silentLogger });
      const directory = await startAgentDirectory({
        store: stores.agents,
        coordination: w1,
        client,
        registry: spawnAgentRegistry(runtime, silentLogger),
        logger: silentLogger,
        resyncIntervalMs: 0,
        tuning: { healthIntervalMs: 5, healthJitterMs: 0, unhealthyAfter: 2 },
      });
      t.teardown(async () => {
        await directory.stop();
        await runtime.stop();
      });
      await stores.agents.create(agent('sickly', null, { vertical: 'sick' }));
      await directory.changed(null, 'sickly');
      const deadline = Date.now() + 2_000;
      while (directory.stats(null, 'sickly')?.healthy !== false && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      t.equal(directory.stats(null, 'sickly')?.healthy, false);
      const preview = directory.preview(null, { ...invoiceQuery, selectionCriteria: { verticals: ['sick'] } });
      t.equal(preview.candidates.find((c) => c.agentId === 'sickly')?.status, 'unhealthy');
      t.equal(preview.selected.length, 0);
    });

    t.test('execute on an agent the account cannot see is a stopped rejection, not a throw', async (t) => {
      const directory = await directoryOn(t, stores, w1);
      t.match(await directory.execute('acct_nobody', 'no-such-agent', { prompt: 'x', context: {}, requestId: 'r', userId: 'u' }), {
        ok: false,
        kind: 'stopped',
        rejected: true,
      });
    });
  });
}
