/** Every durable store (Postgres or embedded PGlite) as one bundle. */
import { type AccountStore } from './accounts.js';
import { type AgentStore } from './agents.js';
import { type ApiKeyStore } from './api-keys.js';
import { type ApprovalStore } from './approvals.js';
import { type ExecutionStore } from './executions.js';
import { type IdempotencyStore } from './idempotency.js';
import { type UsageStore } from './usage.js';
import { type WebhookStore } from './webhooks.js';
import { type WorkflowRunStore } from './workflow-runs.js';
import { type WorkflowStore } from './workflows.js';

export interface DurableStores {
  readonly accounts: AccountStore;
  readonly apiKeys: ApiKeyStore;
  readonly usage: UsageStore;
  readonly webhooks: WebhookStore;
  readonly agents: AgentStore;
  readonly executions: ExecutionStore;
  readonly idempotency: IdempotencyStore;
  readonly workflows: WorkflowStore;
  readonly workflowRuns: WorkflowRunStore;
  readonly approvals: ApprovalStore;
  /** Round trip to the database, for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
