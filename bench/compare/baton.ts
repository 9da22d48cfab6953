/**
 * Baton as a compared system: one worker (embedded or real Postgres + Redis), a mock agent that
 * answers at once, and two workflows: `bench-simple` (one agent answer) and `bench-hitl` (the
 * agent asks for a high-risk tool, the run pauses until approved, then answers).
 *
 * Unlike the peers, whose steps are functions in their own process, every Baton flow calls a
 * real HTTP agent (and the HITL flow a real HTTP tool): the report says so beside each ratio.
 */
import { startMockAgentFleet } from '../mock-agent-fleet.js';
import type { BenchMode } from '../scenarios.js';
import { startBaton } from '../run.js';
import { HttpClient, type Json } from './http.js';
import type { ComparedSystem } from './system.js';

const CAPABILITY = 'bench-compare';

/** Terminal states of GET /v1/executions/{id}. */
const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

/** `baseline`: a built checkout of an earlier commit, run instead of this one (see startBaton). */
export async function startBatonSystem(mode: BenchMode, baseline?: { readonly root: string; readonly label: string }): Promise<ComparedSystem> {
  const baton = await startBaton(mode, baseline?.root);
  const fleet = await startMockAgentFleet([
    {
      record: false,
      info: { id: 'bench-compare-agent', name: 'Bench compare agent', description: 'Answers at once', capabilities: [CAPABILITY], pricing: { model: 'per_execution', basePrice: 0.001 } },
      // The HITL workflow offers the agent a tool: ask for it once, answer once it ran.
      output: (request) => {
        const context = (request.body as { input?: { context?: { tools?: unknown[]; toolResults?: unknown[] } } } | undefined)?.input?.context;
        const offered = (context?.tools?.length ?? 0) > 0;
        const ran = (context?.toolResults?.length ?? 0) > 0;
        return offered && !ran ? { toolCalls: [{ id: 'call-1', name: 'approve_payment', input: { amount: 1 } }] } : { answer: 'done' };
      },
    },
  ]);
  baton.ctx.defer(() => fleet.close());
  const agent = fleet.agent(0);
  const client = new HttpClient(baton.url, { authorization: `Bearer ${baton.ctx.key}` });
  await client.json('POST', '/v1/agents', {
    id: agent.info.id,
    name: agent.info.name,
    description: agent.info.description,
    url: agent.url,
    vertical: 'bench',
    capabilities: agent.info.capabilities,
    pricing: agent.info.pricing,
  });
  await client.json('POST', '/v1/workflows', { slug: 'bench-simple', name: 'Bench simple', steps: [{ id: 'answer', agent: agent.info.id }] });
  await client.json('POST', '/v1/workflows', {
    slug: 'bench-hitl',
    name: 'Bench approval',
    steps: [{ id: 'pay', agent: agent.info.id, tools: [{ name: 'approve_payment', url: `${agent.url}/execute`, risk: 'high' }] }],
  });

  // Long poll when the server offers it (`?wait=`), otherwise a poll every 5 ms.
  const probe = await client.json('POST', '/v1/orchestrate', orchestrateBody());
  const longPoll = await client
    .json('GET', `/v1/executions/${String(probe.executionId)}?wait=1`)
    .then(() => true, () => false);

  const waitFor = async (id: string): Promise<void> => {
    for (;;) {
      const status = await client.json('GET', `/v1/executions/${id}${longPoll ? '?wait=10000' : ''}`);
      if (TERMINAL.has(String(status.status))) {
        if (status.status !== 'COMPLETED') throw new Error(`execution ${id} ended ${String(status.status)}: ${JSON.stringify(status.error)}`);
        return;
      }
      if (!longPoll) await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  const streamUntilDone = async (streamUrl: string, onEvent?: (event: string, data: string) => Promise<void>): Promise<void> => {
    let buffer = '';
    let done = false;
    await client.stream('GET', streamUrl, undefined, async (text) => {
      buffer += text;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1] ?? '';
        if (event === undefined) continue;
        if (event === 'error') throw new Error(`run failed: ${data}`);
        if (onEvent) await onEvent(event, data);
        if (event === 'done') done = true;
      }
      return done;
    });
    if (!done) throw new Error('stream ended before done');
  };

  const run = async (slug: string): Promise<{ execution_id: string; stream_url: string }> =>
    (await client.json('POST', `/v1/workflows/${slug}/run`, { task: 'bench' })) as { execution_id: string; stream_url: string };

  return {
    name: `${mode === 'embedded' ? 'Baton (embedded)' : 'Baton (Postgres + Redis)'}${baseline === undefined ? '' : ` @ ${baseline.label}`}`,
    note: longPoll ? 'run-and-wait: POST /v1/orchestrate, then GET /v1/executions/{id}?wait= (long poll)' : 'run-and-wait: POST /v1/orchestrate, then GET /v1/executions/{id} every 5 ms',
    pid: baton.pid,
    flows: {
      runAndWait: async () => {
        const accepted = await client.json('POST', '/v1/orchestrate', orchestrateBody());
        await waitFor(String(accepted.executionId));
      },
      stream: async () => {
        const started = await run('bench-simple');
        await streamUntilDone(new URL(started.stream_url, baton.url).pathname);
      },
      hitl: async () => {
        const started = await run('bench-hitl');
        await streamUntilDone(new URL(started.stream_url, baton.url).pathname, async (event, data) => {
          if (event !== 'approval_request') return;
          const approvalId = (JSON.parse(data) as { approval_id: string }).approval_id;
          await client.json('POST', `/v1/workflows/execute/${started.execution_id}/approve/${approvalId}`, { reason: 'bench' });
        });
      },
    },
    async stop() {
      await client.close();
      await baton.stop();
    },
  };
}

function orchestrateBody(): Json {
  return { query: 'bench compare', selectionCriteria: { requiredCapabilities: [CAPABILITY], minConfidence: 0, maxAgents: 1 } };
}
