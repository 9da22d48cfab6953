/** Durable stores on SQL (real Postgres or embedded PGlite). */
import type { DurableStores } from '../../../ports/durable.js';
import { sqlAccountStore } from './accounts.js';
import { sqlAgentStore } from './agents.js';
import { sqlExecutionStore } from './executions.js';
import { sqlIdempotencyStore } from './idempotency.js';
import { sqlApiKeyStore } from './api-keys.js';
import { openSql, type SqlConfig } from './connect.js';
import { migrate } from './migrate.js';
import { sqlUsageStore } from './usage.js';
import { sqlWebhookStore } from './webhooks.js';
import { sqlApprovalStore, sqlWorkflowRunStore, sqlWorkflowStore } from './workflows.js';

export { MEMORY_DATA_DIR, openSql, type Sql, type SqlConfig, type SqlHandle } from './connect.js';
export { migrate, listMigrations } from './migrate.js';

export interface DurableOptions {
  /** Skip migrations on open (e.g. when `baton migrate` runs them separately). Default false. */
  readonly skipMigrations?: boolean;
}

/** Opens the pool, applies pending migrations, and returns the stores. */
export async function openDurableStores(config: SqlConfig, options: DurableOptions = {}): Promise<DurableStores> {
  const handle = await openSql(config);
  try {
    if (options.skipMigrations !== true) await migrate(handle.sql, config.databaseSchema);
  } catch (err) {
    await handle.close();
    throw err;
  }
  const { sql } = handle;
  return {
    accounts: sqlAccountStore(sql),
    apiKeys: sqlApiKeyStore(sql),
    usage: sqlUsageStore(sql),
    webhooks: sqlWebhookStore(sql),
    agents: sqlAgentStore(sql),
    executions: sqlExecutionStore(sql),
    idempotency: sqlIdempotencyStore(sql),
    workflows: sqlWorkflowStore(sql),
    workflowRuns: sqlWorkflowRunStore(sql),
    approvals: sqlApprovalStore(sql),
    async ping(): Promise<void> {
      await sql`select 1`;
    },
    close: () => handle.close(),
  };
}
