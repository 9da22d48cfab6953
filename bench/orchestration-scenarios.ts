/**
 * Orchestration scenarios, against mock agents from bench/mock-agent-fleet.ts (in the bench
 * process, answering at once) registered through POST /v1/agents with the bench key:
 *
 * - `status-read`: GET /v1/executions/{id} of one COMPLETED execution created in setup.
 * - `orchestrate-1-agent`, `orchestrate-3-agents`: POST /v1/orchestrate; what counts is 202s.
 *
 * Each scenario's agents carry their own capability and are required by its requests, so one
 * scenario's agents are never selected by another's.
 */
import { startMockAgentFleet, type MockAgent } from './mock-agent-fleet.js';
import { registerScenario, type HttpContext, type HttpSetup } from './scenarios.js';

type Json = Record<string, unknown>;

async function call(ctx: HttpContext, method: 'GET' | 'POST', urlPath: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(ctx.baseUrl + urlPath, {
    method,
    headers: { authorization: `Bearer ${ctx.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    parsed = { text };
  }
  return { status: res.status, body: parsed };
}

/** Starts `count` immediate mock agents with `capability`, registers them, and closes them when the server stops. */
async function registerAgents(ctx: HttpContext, capability: string, count: number): Promise<readonly MockAgent[]> {
  const fleet = await startMockAgentFleet(
    Array.from({ length: count }, (_, i) => ({
      record: false, // a run sends tens of thousands of calls
      info: {
        id: `${capability}-${i + 1}`,
        name: `Bench ${capability} ${i + 1}`,
        description: `Bench agent ${i + 1} for ${capability}`,
        capabilities: [capability],
        pricing: { model: 'per_execution', basePrice: 0.001 },
      },
    })),
  );
  ctx.defer(() => fleet.close());
  for (const agent of fleet.agents) {
    const res = await call(ctx, 'POST', '/v1/agents', {
      id: agent.info.id,
      name: agent.info.name,
      description: agent.info.description,
      url: agent.url,
      vertical: 'bench',
      capabilities: agent.info.capabilities,
      pricing: agent.info.pricing,
    });
    if (res.status !== 201) throw new Error(`agent registration refused: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return fleet.agents;
}

function orchestrateBody(capability: string, agents: number): string {
  return JSON.stringify({
    query: `bench ${capability}`,
    selectionCriteria: { requiredCapabilities: [capability], minConfidence: 0, maxAgents: agents },
  });
}

const POST_JSON = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

registerScenario({
  kind: 'http',
  name: 'status-read',
  description: 'GET /v1/executions/{id} of a COMPLETED execution (auth + rate limit + status read; the issue\'s "authenticated status read")',
  modes: ['embedded', 'real'],
  halfLoad: true,
  async setup(ctx): Promise<HttpSetup> {
    await registerAgents(ctx, 'bench-status', 1);
    const submitted = await call(ctx, 'POST', '/v1/orchestrate', JSON.parse(orchestrateBody('bench-status', 1)));
    if (submitted.status !== 202) throw new Error(`orchestrate refused: ${submitted.status} ${JSON.stringify(submitted.body)}`);
    const id = submitted.body.executionId as string;
    const deadline = Date.now() + 15_000;
    for (;;) {
      const res = await call(ctx, 'GET', `/v1/executions/${id}`);
      if (res.status !== 200) throw new Error(`status read failed: ${res.status} ${JSON.stringify(res.body)}`);
      if (res.body.status === 'COMPLETED') break;
      if (res.body.status === 'FAILED' || res.body.status === 'CANCELLED' || Date.now() > deadline) {
        throw new Error(`bench execution ${id} ended ${String(res.body.status)}, not COMPLETED`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return { vars: { executionId: id } };
  },
  request: (ctx, vars) => ({ path: `/v1/executions/${vars.executionId}`, headers: { authorization: `Bearer ${ctx.key}` } }),
});

for (const agents of [1, 3] as const) {
  const capability = `bench-orchestrate-${agents}`;
  registerScenario({
    kind: 'http',
    name: agents === 1 ? 'orchestrate-1-agent' : 'orchestrate-3-agents',
    description:
      `POST /v1/orchestrate selecting ${agents} mock agent${agents === 1 ? '' : 's'} (PARALLEL, agents answer at once); ` +
      'accepted = 202; the executions run on the same worker while the load goes on',
    modes: ['embedded', 'real'],
    async setup(ctx): Promise<HttpSetup> {
      const fleet = await registerAgents(ctx, capability, agents);
      // One request first, so a refusal fails here with its body rather than as a column of non-2xx.
      const probe = await call(ctx, 'POST', '/v1/orchestrate', JSON.parse(orchestrateBody(capability, agents)));
      if (probe.status !== 202) throw new Error(`orchestrate refused: ${probe.status} ${JSON.stringify(probe.body)}`);
      if ((probe.body.selectedAgents as unknown[] | undefined)?.length !== agents) {
        throw new Error(`expected ${agents} selected agents, got ${JSON.stringify(probe.body.selectedAgents)}`);
      }
      const callsBefore = (): number => fleet.reduce((n, a) => n + a.executeCount, 0);
      const before = callsBefore();
      const startedMs = Date.now();
      return {
        vars: {},
        afterLoad: () => {
          const calls = callsBefore() - before;
          const seconds = (Date.now() - startedMs) / 1000;
          return `${calls.toLocaleString('en-US')} agent calls received by the end of the load (${Math.round(calls / agents / seconds).toLocaleString('en-US')} executions/s reached the agents)`;
        },
      };
    },
    request: (ctx) => ({ method: 'POST', path: '/v1/orchestrate', headers: POST_JSON(ctx.key), body: orchestrateBody(capability, agents) }),
  });
}
