/** The services route handlers may use, as one bundle. Built once per worker by `src/main/worker.ts`. */
import type { KeyRevocations } from './auth/revocations.js';
import type { KeyHasher } from './auth/key-material.js';
import type { AgentDirectory } from './agents/directory.js';
import type { AgentClient } from '../ports/agent-client.js';
import type { Config } from '../support/config.js';
import type { GuardedFetch } from '../ports/guarded-fetch.js';
import type { Admission } from './limits/admission.js';
import type { Logger } from '../support/log.js';
import type { Metrics } from '../support/metrics/index.js';
import type { OrchestrationService } from './orchestration/service.js';
import type { Coordination } from '../ports/coordination.js';
import type { DurableStores } from '../ports/durable.js';
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
  readonly a2aAgents: { readonly cardFetch: GuardedFetch };
  /** StatsD metrics (a no-op when BATON_STATSD is unset); see docs/observability.md. */
  readonly metrics: Metrics;
  /** Orchestration executions: submit, status, cancel (src/services/orchestration/service.ts). */
  readonly orchestration: OrchestrationService;
  /** Workflow definitions, runs, streams and approvals (src/services/workflows/service.ts). */
  readonly workflows: WorkflowsService;
  /** Refuses new executions and runs with 503 OVERLOADED when this worker cannot keep up. */
  readonly admission: Pick<Admission, 'check'>;
}
