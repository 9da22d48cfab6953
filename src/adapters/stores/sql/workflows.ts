/**
 * Workflow stores on SQL: definitions (per account, or global), runs (a row with the definition
 * snapshot and checkpoint as JSON, an owner and a lease), approvals. Every state change is a
 * conditional update, so two workers (or a decision and a timeout) racing cannot both win.
 */
import type { ApprovalRecord, ApprovalStatus, RunCheckpoint, ToolCall, WorkflowDefinition, WorkflowRecord, WorkflowRunRecord, WorkflowRunStatus } from '../../../domain/workflows.js';
import type { ApprovalStore } from '../../../ports/approvals.js';
import type { WorkflowRunStore } from '../../../ports/workflow-runs.js';
import type { WorkflowStore } from '../../../ports/workflows.js';
import type { Sql } from './connect.js';
import { listNewestFirst } from './newest-first.js';

const UNIQUE_VIOLATION = '23505';

interface WorkflowRow {
  readonly account_id: string | null;
  readonly definition: WorkflowDefinition;
  readonly created_at: Date;
  readonly updated_at: Date;
}

function toWorkflow(row: WorkflowRow): WorkflowRecord {
  return { accountId: row.account_id, definition: row.definition, createdAt: row.created_at, updatedAt: row.updated_at };
}

export function sqlWorkflowStore(sql: Sql): WorkflowStore {
  return {
    async create(accountId, definition) {
      try {
        const rows = await sql<WorkflowRow[]>`
          insert into workflows (account_id, slug, definition)
          values (${accountId}, ${definition.slug}, ${JSON.stringify(definition)}::text::jsonb)
          returning account_id, definition, created_at, updated_at`;
        return rows[0] === undefined ? null : toWorkflow(rows[0]);
      } catch (error) {
        if ((error as { code?: string }).code === UNIQUE_VIOLATION) return null;
        throw error;
      }
    },

    async getOwned(accountId, slug) {
      const rows = await sql<WorkflowRow[]>`
        select account_id, definition, created_at, updated_at from workflows
        where coalesce(account_id, '') = ${accountId ?? ''} and slug = ${slug}`;
      return rows[0] === undefined ? null : toWorkflow(rows[0]);
    },

    async getVisible(accountId, slug) {
      // Own first (nulls last), then global.
      const rows = await sql<WorkflowRow[]>`
        select account_id, definition, created_at, updated_at from workflows
        where slug = ${slug} and (account_id = ${accountId} or account_id is null)
        order by account_id nulls last limit 1`;
      return rows[0] === undefined ? null : toWorkflow(rows[0]);
    },

    async listVisible(accountId) {
      const rows = await sql<WorkflowRow[]>`
        select distinct on (slug) account_id, definition, created_at, updated_at from workflows
        where account_id is null or account_id = ${accountId ?? ''}
        order by slug, account_id nulls last`;
      return rows.map(toWorkflow);
    },

    async update(accountId, definition) {
      const rows = await sql<WorkflowRow[]>`
        update workflows set definition = ${JSON.stringify(definition)}::text::jsonb, updated_at = now()
        where coalesce(account_id, '') = ${accountId ?? ''} and slug = ${definition.slug}
        returning account_id, definition, created_at, updated_at`;
      return rows[0] === undefined ? null : toWorkflow(rows[0]);
    },

    async delete(accountId, slug) {
      const rows = await sql`delete from workflows where coalesce(account_id, '') = ${accountId ?? ''} and slug = ${slug} returning slug`;
      return rows.length > 0;
    },
  };
}

interface RunRow {
  readonly record: WorkflowRunRecord;
}

export function sqlWorkflowRunStore(sql: Sql): WorkflowRunStore {
  return {
    listByAccount(accountId, query) {
      // Served by workflow_runs_account_created (migration 008).
      return listNewestFirst<WorkflowRunRecord>(sql, 'workflow_runs', accountId, query);
    },

    async insert(record, owner, leaseMs) {
      await sql`
        insert into workflow_runs (id, account_id, status, record, owner, lease_until, created_at, updated_at)
        values (${record.id}, ${record.accountId}, ${record.status}, ${JSON.stringify(record)}::text::jsonb, ${owner},
                now() + ${leaseMs} * interval '1 millisecond', ${record.createdAt}, ${record.createdAt})`;
    },

    async get(accountId, id) {
      const rows = await sql<RunRow[]>`select record from workflow_runs where id = ${id} and account_id = ${accountId}`;
      return rows[0]?.record ?? null;
    },

    async getById(id) {
      const rows = await sql<RunRow[]>`select record from workflow_runs where id = ${id}`;
      return rows[0]?.record ?? null;
    },

    async transition(id, from, status, patch) {
      const doc = JSON.stringify({ ...patch, status });
      const rows = await sql<RunRow[]>`
        update workflow_runs set status = ${status}, record = record || ${doc}::text::jsonb, updated_at = now()
        where id = ${id} and status = any(${from as WorkflowRunStatus[]}::text[])
        returning record`;
      return rows[0]?.record ?? null;
    },

    async saveCheckpoint(id, checkpoint: RunCheckpoint | null) {
      const doc = JSON.stringify({ checkpoint });
      await sql`
        update workflow_runs set record = record || ${doc}::text::jsonb, updated_at = now()
        where id = ${id} and status = 'running'`;
    },

    async renewLeases(owner, leaseMs) {
      await sql`
        update workflow_runs set lease_until = now() + ${leaseMs} * interval '1 millisecond'
        where owner = ${owner} and status = 'running'`;
    },

    async releasePaused(owner) {
      // Only paused runs: their whole state is the checkpoint; a run mid-call is not handed over.
      await sql`
        update workflow_runs set lease_until = now() - interval '1 second'
        where owner = ${owner} and status = 'running' and jsonb_typeof(record->'checkpoint') = 'object'`;
    },

    async claim(owner, leaseMs, limit, all) {
      // skip locked: two workers scanning at once take disjoint sets instead of waiting on each other.
      const rows = await sql<RunRow[]>`
        update workflow_runs set owner = ${owner}, lease_until = now() + ${leaseMs} * interval '1 millisecond', updated_at = now()
        where id in (
          select id from workflow_runs
          where status = 'running' and owner is distinct from ${owner}
            and (${all} or lease_until is null or lease_until < now())
          order by created_at limit ${limit}
          for update skip locked
        )
        returning record`;
      return rows.map((r) => r.record);
    },
  };
}

interface ApprovalRow {
  readonly id: string;
  readonly execution_id: string;
  readonly account_id: string;
  readonly workflow_slug: string;
  readonly tool_call: ToolCall;
  readonly status: ApprovalStatus;
  readonly reason: string | null;
  readonly requested_at: Date;
  readonly expires_at: Date;
  readonly decided_at: Date | null;
}

function toApproval(row: ApprovalRow): ApprovalRecord {
  return {
    id: row.id,
    executionId: row.execution_id,
    accountId: row.account_id,
    workflowSlug: row.workflow_slug,
    toolCall: row.tool_call,
    status: row.status,
    reason: row.reason,
    requestedAt: row.requested_at,
    expiresAt: row.expires_at,
    decidedAt: row.decided_at,
  };
}

export function sqlApprovalStore(sql: Sql): ApprovalStore {
  return {
    async create(record) {
      const rows = await sql<ApprovalRow[]>`
        insert into workflow_approvals (id, execution_id, account_id, workflow_slug, tool_call, status, requested_at, expires_at)
        values (${record.id}, ${record.executionId}, ${record.accountId}, ${record.workflowSlug},
                ${JSON.stringify(record.toolCall)}::text::jsonb, 'pending', ${record.requestedAt}, ${record.expiresAt})
        returning *`;
      return toApproval(rows[0]!);
    },

    async get(accountId, id) {
      const rows = await sql<ApprovalRow[]>`select * from workflow_approvals where id = ${id} and account_id = ${accountId}`;
      return rows[0] === undefined ? null : toApproval(rows[0]);
    },

    async getById(id) {
      const rows = await sql<ApprovalRow[]>`select * from workflow_approvals where id = ${id}`;
      return rows[0] === undefined ? null : toApproval(rows[0]);
    },

    async decide(id, status, reason, at) {
      const rows = await sql<ApprovalRow[]>`
        update workflow_approvals set status = ${status}, reason = ${reason}, decided_at = ${at}
        where id = ${id} and status = 'pending'
        returning *`;
      return rows[0] === undefined ? null : toApproval(rows[0]);
    },

    async list(accountId, status, limit) {
      const rows = await sql<ApprovalRow[]>`
        select * from workflow_approvals where account_id = ${accountId} and status = ${status}
        order by requested_at limit ${limit}`;
      return rows.map(toApproval);
    },

    async cancelPending(executionId, at) {
      const rows = await sql`
        update workflow_approvals set status = 'cancelled', decided_at = ${at}
        where execution_id = ${executionId} and status = 'pending' returning id`;
      return rows.length;
    },
  };
}
