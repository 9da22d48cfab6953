/**
 * Selection quality through the real path: a worker started in this process (embedded mode,
 * in-memory PGlite, private URLs allowed), one stub agent per catalog agent from the mock fleet,
 * every catalog agent registered with POST /v1/agents (so /health and /info are probed and the
 * directory rebuilds its index), and every labeled query sent to POST
 * /v1/agents/selection-preview. Metrics come from the same pure functions as
 * `npm run eval:selection`, so the two reports are comparable line for line.
 *   tsx bench/selection-eval-http.ts [--data DIR] [--queries FILE] [--verbose]
 * Exits 1 below the targets, like the in-process evaluation.
 */
import path from 'node:path';
import { loadConfig } from '../src/support/config.js';
import { createLogger } from '../src/support/log.js';
import type { LabeledQuery } from '../src/logic/selection/index.js';
import { MEMORY_DATA_DIR } from '../src/adapters/stores/sql/index.js';
import { startWorker } from '../src/main/worker.js';
import { startMockAgentFleet } from './mock-agent-fleet.js';
import { DEFAULT_DATA_DIR, formatReport, loadDataset, reportMissesAndTargets, runEvaluation, type SelectFn } from './selection-eval.js';

const ADMIN_TOKEN = 'selection-eval-operator-token';

interface Reply {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

async function call(base: string, method: string, urlPath: string, key: string, body?: unknown): Promise<Reply> {
  const res = await fetch(base + urlPath, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? {} : JSON.parse(text)) as Record<string, unknown> };
}

function expect(reply: Reply, status: number, what: string): Record<string, unknown> {
  if (reply.status !== status) throw new Error(`${what}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const dataDir = arg('--data') ?? process.env['SELECTION_DATA_DIR'] ?? DEFAULT_DATA_DIR;
  const queriesFile = arg('--queries') ?? process.env['SELECTION_QUERIES'] ?? path.join(dataDir, 'queries.json');
  const { agents, queries } = loadDataset(dataDir, queriesFile);

  const config = loadConfig(
    {},
    {
      host: '127.0.0.1',
      port: 0,
      databaseUrl: null,
      redisUrl: null,
      dataDir: MEMORY_DATA_DIR,
      adminToken: ADMIN_TOKEN,
      allowPrivateUrls: true,
      logLevel: 'warn',
    },
  );
  const logger = createLogger('warn', { bench: 'selection-eval-http' });
  const fleet = await startMockAgentFleet(
    agents.map((a) => ({
      info: {
        id: a.id,
        name: a.name,
        description: a.description,
        capabilities: [...a.capabilities],
        ...(a.pricing !== undefined ? { pricing: a.pricing } : {}),
      },
      record: false,
    })),
  );
  const worker = await startWorker(config, logger);
  const base = `http://127.0.0.1:${worker.port}`;
  try {
    // An ENTERPRISE account: its default rate limits leave room for every request below.
    const account = expect(await call(base, 'POST', '/v1/accounts', ADMIN_TOKEN, { name: 'selection eval', tier: 'ENTERPRISE' }), 201, 'account');
    const key = expect(
      await call(base, 'POST', '/v1/api-keys', ADMIN_TOKEN, { name: 'eval', permissions: ['agents:read', 'agents:write'], accountId: account.id }),
      201,
      'key',
    ).key as string;

    const registerStarted = performance.now();
    for (const [i, a] of agents.entries()) {
      const stub = fleet.agent(i);
      expect(
        await call(base, 'POST', '/v1/agents', key, {
          id: a.id,
          name: a.name,
          description: a.description,
          url: stub.url,
          vertical: a.vertical,
          capabilities: a.capabilities,
          pricing: a.pricing ?? { model: 'per_execution', basePrice: 0 },
        }),
        201,
        `register ${a.id}`,
      );
    }
    const registerMs = performance.now() - registerStarted;

    const latencies: number[] = [];
    const select: SelectFn = async (q: LabeledQuery) => {
      const started = performance.now();
      const body = expect(
        await call(base, 'POST', '/v1/agents/selection-preview', key, {
          query: q.query,
          ...(q.context !== undefined ? { context: q.context } : {}),
          ...(q.selectionCriteria !== undefined ? { selectionCriteria: q.selectionCriteria } : {}),
        }),
        200,
        `preview ${q.id}`,
      );
      latencies.push(performance.now() - started);
      return (body.selected as Array<{ id: string }>).map((s) => s.id);
    };

    // The first preview builds the account's catalog index: reported apart from the rest.
    const report = await runEvaluation(queries, select);
    console.log(formatReport(`Selection quality over HTTP: ${queriesFile} (${agents.length} agents registered via POST /v1/agents)`, report));
    const sorted = [...latencies].sort((a, b) => a - b);
    console.log(
      `\nregistration: ${agents.length} agents in ${registerMs.toFixed(0)} ms (${(registerMs / agents.length).toFixed(1)} ms each, probes included)` +
        `\npreview round trip: first ${latencies[0]?.toFixed(1)} ms (index build), p50 ${percentile(sorted, 0.5).toFixed(2)} ms, p99 ${percentile(sorted, 0.99).toFixed(2)} ms`,
    );
    reportMissesAndTargets(report, args.includes('--verbose'));
  } finally {
    await worker.stop();
    await fleet.close();
  }
}

await main();
