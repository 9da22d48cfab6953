/** What route handlers may use. Built once per worker by `src/worker.ts`. */
import type { KeyRevocations } from './auth/revocations.js';
import type { KeyHasher } from './auth/key-material.js';
import type { AgentDirectory } from './agents/directory.js';
import type { AgentClient } from './agents/protocol/index.js';
import type { A2aAgents } from './agents/a2a/client.js';
import type { Config } from './config.js';
import type { Admission } from './limits/admission.js';
import type { Logger } from './log.js';
import type { Metrics } from './metrics/index.js';
import type { OrchestrationService } from './orchestration/service.js';
import type { Coordination, DurableStores } from './stores/ports.js';
import type { WorkflowsService } from './workflows/service.js';

export interface Services {
  readonly config: Config;
  readonly logger: Logger;
  readonly version: string;
  readonly stores: DurableStores;
  readonly coordination: Coordination;
  readonly hashKey: KeyHasher;
  readonly revocations: KeyRevocations;
  /** Registered agents: in-memory view, selection, per-agent actors (docs/agents.md). */
  readonly agents: AgentDirectory;
  /** The worker's one agent protocol client: one keep-alive pool per agent origin. */
  readonly agentClient: AgentClient;
  /** Agents registered by their A2A card: card fetches and calls (docs/a2a.md). */
  readonly a2aAgents: Pick<A2aAgents, 'cardFetch'>;
  /** StatsD metrics (a no-op when BATON_STATSD is unset); see docs/observability.md. */
  readonly metrics: Metrics;
  /** Orchestration executions: submit, status, cancel (src/orchestration/service.ts). */
  readonly orchestration: OrchestrationService;
  /** Workflow definitions, runs, streams and approvals (src/workflows/service.ts). */
  readonly workflows: WorkflowsService;
  /** Refuses new executions and runs with 503 OVERLOADED when this worker cannot keep up. */
  readonly admission: Pick<Admission, 'check'>;
}
