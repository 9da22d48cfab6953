/**
 * The workflow API behind the routes: definitions (per account, global, or loaded from files),
 * runs, their event streams, cancels and approval decisions. Runs execute in this worker's
 * WorkflowRunsSupervisor under a lease in the store; decisions and cancels may arrive at any
 * worker: they are recorded in the store first (conditionally) and then broadcast to the owner.
 * A run whose owner is gone is taken over from its checkpoint once its lease lapses.
 * Runs count against the account's concurrent executions (the Concurrency facade): a run is
 * started with a slot, or recorded with a queue place and started when the queue promotes it
 * (on any worker: the promotion is broadcast to the run's owner), or refused with QUEUE_FULL.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { DecisionApplied, NotHere, RunCancelReply, SlotDelivered, WorkflowRunsMessage } from '../../actors/workflow-run-protocol.js';
import { closeRun } from '../../actors/workflow-run-actor.js';
import { ask, dispatch, stop, type Ref } from '../../actors/kit/index.js';
import type { AgentDirectory } from '../agents/directory.js';
import {
  approvalAlreadyDecided,
  approvalNotFound,
  executionNotCancellable,
  executionNotFound,
  invalidRequest,
  queueFull,
  workflowAlreadyExists,
  workflowNotFound,
} from '../../domain/errors.js';
import type { SseSink } from '../../ports/event-sink.js';
import { newId } from '../../domain/ids.js';
import { queueRetryAfterSeconds } from '../limits/concurrency.js';
import type { Logger } from '../../support/log.js';
import type { Metrics } from '../../support/metrics/index.js';
import type { WorkflowBody, WorkflowReplaceBody, RunWorkflowBody } from '../../schemas/workflows.js';
import { isTerminalRun, type ApprovalRecord, type ApprovalStatus, type WorkflowDefinition, type WorkflowRunRecord, type WorkflowRunStatus } from '../../domain/workflows.js';
import type { ApprovalStore } from '../../ports/approvals.js';
import type { Coordination } from '../../ports/coordination.js';
import type { NewestFirstQuery } from '../../ports/list-query.js';
import type { WorkflowRunStore } from '../../ports/workflow-runs.js';
import type { WorkflowStore } from '../../ports/workflows.js';
import { exceedsDepth } from '../../schemas/validation.js';
import { checkDefinition, workflowView, type WorkflowScope, type WorkflowView } from './definition.js';
import { createRunEmitter, streamOf, WorkflowEvent } from '../../logic/workflow-events.js';
import { estimatedRunMs } from './slots.js';
import type { Concurrency, PromotionStarter } from '../../ports/limits.js';
import { currentTraceparent } from '../../support/telemetry/index.js';
import { renewEveryMs } from '../limits/concurrency.js';

export const DECISION_CHANNEL = 'workflows.decision';
export const CANCEL_CHANNEL = 'workflows.cancel';
/** A queued run was promoted into a slot on some worker: its owner starts (or continues) it. */
export const SLOT_CHANNEL = 'workflows.slot';
const BROADCAST_TIMEOUT_MS = 5_000;
const LOCAL_ASK_TIMEOUT_MS = 4_000;
/** Without `leaseMs` in the deps (tests): the default of BATON_LEASE_MS. */
const DEFAULT_LEASE_MS = 30_000;
const CLAIM_BATCH = 100;
const HEARTBEAT_MS = 15_000;
const MAX_METADATA_DEPTH = 10;
const APPROVAL_LIST_LIMIT = 500;

export interface WorkflowsDeps {
  readonly workflows: WorkflowStore;
  readonly runs: WorkflowRunStore;
  readonly approvals: ApprovalStore;
  readonly coordination: Pick<Coordination, 'subscribe' | 'broadcastAndAwait' | 'followEvents' | 'appendEvent'>;
  readonly directory: Pick<AgentDirectory, 'visible'>;
  readonly supervisor: Ref<WorkflowRunsMessage>;
  readonly metrics: Pick<Metrics, 'sseOpened' | 'sseClosed' | 'sseEventsSent'> & Partial<Pick<Metrics, 'queueRejected'>>;
  /** Concurrency slots and queue (docs/limits.md): runs share their account's with orchestrations. */
  readonly concurrency: Pick<Concurrency, 'acquire' | 'release' | 'state' | 'limits' | 'addStarter'>;
  readonly logger: Logger;
  readonly allowPrivateUrls: boolean;
  /** Definitions from BATON_WORKFLOWS_DIR: global, read-only, shadowed by stored ones. */
  readonly fileWorkflows: readonly WorkflowDefinition[];
  /** Embedded mode: this is the only worker, so every running run at start is ours to resume. */
  readonly soleWorker: boolean;
  readonly heartbeatMs?: number;
  /** BATON_LEASE_MS: a run's ownership lapses this long after its owner's last renewal (a third of it). */
  readonly leaseMs?: number;
}

/**
 * Answers are the API views (the routes choose the status: 201 for a created definition, else
 * 200); failures are catalogue errors.
 */
export interface WorkflowsService {
  create(accountId: string | null, body: WorkflowBody): Promise<WorkflowView>;
  list(accountId: string | null): Promise<{ workflows: WorkflowView[] }>;
  get(accountId: string | null, slug: string): Promise<WorkflowView>;
  replace(accountId: string | null, slug: string, body: WorkflowReplaceBody): Promise<WorkflowView>;
  remove(accountId: string | null, slug: string): Promise<void>;
  run(accountId: string, slug: string, body: RunWorkflowBody): Promise<RunStartedView>;
  status(accountId: string, id: string): Promise<RunStatusView>;
  cancel(accountId: string, id: string): Promise<RunStatusView>;
  decide(accountId: string, executionId: string, approvalId: string, decision: 'approved' | 'rejected', reason: string | null): Promise<ApprovalView>;
  listApprovals(accountId: string, status: ApprovalStatus): Promise<{ approvals: ApprovalView[] }>;
  /** The account's runs, newest first, as status views (GET /v1/workflow-runs). */
  listRuns(accountId: string, query: NewestFirstQuery<WorkflowRunStatus>): Promise<{ runs: RunStatusView[]; nextCursor: string | null }>;
  /** Checks access now (404 before the stream starts); the returned function feeds a sink. */
  openStream(accountId: string, id: string, lastEventId: string): Promise<(sink: SseSink) => void>;
  stop(): Promise<void>;
}

/** `stream_url` of spec §2.6 (note the /api prefix, as the spec has it). */
export function streamUrl(id: string): string {
  return `/api/v1/workflows/execute/${id}/stream`;
}

export function runView(record: WorkflowRunRecord) {
  return {
    execution_id: record.id,
    status: record.status,
    workflow_slug: record.workflow.slug,
    workflow_name: record.workflow.name,
    stream_url: streamUrl(record.id),
    created_at: record.createdAt,
    conversation_id: record.conversationId,
  };
}

/** A started run; a queued one also says its place in the queue. */
export type RunStartedView = Omit<ReturnType<typeof runView>, 'status'> & { status: WorkflowRunStatus | 'queued'; queue_position?: number; message?: string };

/** `queued`: the run is recorded as running but waits in the concurrency queue for a slot. */
function statusView(record: WorkflowRunRecord, queued = false) {
  return {
    ...runView(record),
    ...(queued ? { status: 'queued' } : {}),
    completed_at: record.completedAt,
    final_answer: record.finalAnswer,
    error: record.error,
    // A run queued after its decision keeps the checkpoint until it has a slot; it no longer waits for the approval.
    waiting_for_approval: queued ? null : (record.checkpoint?.approvalId ?? null),
  };
}

export type RunStatusView = ReturnType<typeof statusView>;

function approvalView(a: ApprovalRecord) {
  return {
    approval_id: a.id,
    execution_id: a.executionId,
    workflow_slug: a.workflowSlug,
    tool_name: a.toolCall.name,
    tool_input: a.toolCall.input,
    status: a.status,
    reason: a.reason,
    requested_at: a.requestedAt.toISOString(),
    expires_at: a.expiresAt.toISOString(),
    decided_at: a.decidedAt?.toISOString() ?? null,
  };
}

export type ApprovalView = ReturnType<typeof approvalView>;

export async function startWorkflows(deps: WorkflowsDeps): Promise<WorkflowsService> {
  const owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const files = new Map(deps.fileWorkflows.map((d) => [d.slug, d]));
  const leaseMs = deps.leaseMs ?? DEFAULT_LEASE_MS;
  // Half a lease: a dead owner's runs are taken over within about 1.5 leases, as executions are.
  const claimEveryMs = Math.max(100, Math.floor(leaseMs / 2));

  const unsubscribeDecisions = await deps.coordination.subscribe(DECISION_CHANNEL, async (message) => {
    const { executionId, approvalId } = JSON.parse(message) as { executionId: string; approvalId: string };
    try {
      await ask<WorkflowRunsMessage, DecisionApplied | NotHere>(
        deps.supervisor,
        (replyTo) => ({ type: 'workflowRuns.decision', executionId, approvalId, replyTo }),
        LOCAL_ASK_TIMEOUT_MS,
      );
    } catch (error) {
      deps.logger.warn({ err: error, executionId, approvalId }, 'decision not delivered to the local workflow run');
    }
  });
  const unsubscribeSlots = await deps.coordination.subscribe(SLOT_CHANNEL, async (executionId) => {
    try {
      await ask<WorkflowRunsMessage, SlotDelivered | NotHere>(
        deps.supervisor,
        (replyTo) => ({ type: 'workflowRuns.slot', executionId, replyTo }),
        LOCAL_ASK_TIMEOUT_MS,
      );
    } catch (error) {
      deps.logger.warn({ err: error, executionId }, 'slot not delivered to the local workflow run');
    }
  });
  // Runs promoted from the queue on this worker are handed to their owner, wherever it is.
  deps.concurrency.addStarter(runStarter());

  const unsubscribeCancels = await deps.coordination.subscribe(CANCEL_CHANNEL, async (executionId) => {
    try {
      await ask<WorkflowRunsMessage, RunCancelReply | NotHere>(
        deps.supervisor,
        (replyTo) => ({ type: 'workflowRuns.cancel', executionId, replyTo }),
        LOCAL_ASK_TIMEOUT_MS,
      );
    } catch (error) {
      deps.logger.warn({ err: error, executionId }, 'cancel not delivered to the local workflow run');
    }
  });

  /** Takes over runs whose owner is gone: paused ones resume, the rest fail as interrupted. */
  async function claim(all: boolean): Promise<void> {
    for (;;) {
      const claimed = await deps.runs.claim(owner, leaseMs, CLAIM_BATCH, all);
      for (const record of claimed) {
        deps.logger.info({ executionId: record.id, paused: record.checkpoint !== null }, 'taking over a workflow run');
        dispatch(deps.supervisor, { type: 'workflowRuns.start', record, resume: true });
      }
      if (claimed.length < CLAIM_BATCH) return;
    }
  }

  await claim(deps.soleWorker);
  const renewTimer = setInterval(() => {
    deps.runs.renewLeases(owner, leaseMs).catch((err: unknown) => deps.logger.warn({ err }, 'renewing workflow leases failed'));
  }, renewEveryMs(leaseMs));
  renewTimer.unref();
  const claimTimer = deps.soleWorker
    ? null
    : setInterval(() => {
        claim(false).catch((err: unknown) => deps.logger.warn({ err }, 'scanning for orphaned workflow runs failed'));
      }, claimEveryMs);
  claimTimer?.unref();

  /** Stops a local run actor whose record could not be written (it closes nothing: there is no record). */
  async function cancelLocal(executionId: string): Promise<void> {
    try {
      await ask<WorkflowRunsMessage, RunCancelReply | NotHere>(deps.supervisor, (replyTo) => ({ type: 'workflowRuns.cancel', executionId, replyTo }), LOCAL_ASK_TIMEOUT_MS);
    } catch (error) {
      deps.logger.warn({ err: error, executionId }, 'could not stop the actor of a run that was never recorded');
    }
  }

  function runStarter(): PromotionStarter {
    return {
      async start(_accountId, holderId) {
        const record = await deps.runs.getById(holderId);
        // Not a run (an orchestration's), or not committed yet: the queue asks again later.
        if (record === null) return 'unknown';
        if (record.status !== 'running') return 'finished';
        // The owner (this worker or another) takes it from here. An owner that is gone leaves
        // the slot unrenewed: its lease lapses and it is reclaimed, and the run is taken over.
        await deps.coordination.broadcastAndAwait(SLOT_CHANNEL, holderId, BROADCAST_TIMEOUT_MS);
        return 'started';
      },
    };
  }

  async function resolveDefinition(accountId: string, slug: string): Promise<WorkflowDefinition> {
    const stored = await deps.workflows.getVisible(accountId, slug);
    if (stored !== null) return stored.definition;
    const file = files.get(slug);
    if (file !== undefined) return file;
    throw workflowNotFound(slug);
  }

  function check(accountId: string | null, definition: WorkflowDefinition): void {
    checkDefinition(definition, {
      allowPrivateUrls: deps.allowPrivateUrls,
      agentVisible: (agentId) => {
        const agent = deps.directory.visible(accountId, agentId);
        // A global workflow may only use global agents: every account must be able to run it.
        return agent !== undefined && (accountId !== null || agent.ownerAccountId === null);
      },
    });
  }

  const scopeOf = (accountId: string | null): WorkflowScope => (accountId === null ? 'global' : 'account');

  return {
    async create(accountId, body) {
      check(accountId, body);
      const created = await deps.workflows.create(accountId, body);
      if (created === null) throw workflowAlreadyExists(body.slug);
      return workflowView(created.definition, scopeOf(accountId), created);
    },

    async list(accountId) {
      const stored = await deps.workflows.listVisible(accountId);
      const seen = new Set(stored.map((r) => r.definition.slug));
      const views = stored.map((r) => workflowView(r.definition, r.accountId === null ? 'global' : 'account', r));
      for (const [slug, definition] of files) if (!seen.has(slug)) views.push(workflowView(definition, 'file', null));
      views.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
      return { workflows: views };
    },

    async get(accountId, slug) {
      const stored = accountId === null ? await deps.workflows.getOwned(null, slug) : await deps.workflows.getVisible(accountId, slug);
      if (stored !== null) return workflowView(stored.definition, stored.accountId === null ? 'global' : 'account', stored);
      const file = files.get(slug);
      if (file !== undefined) return workflowView(file, 'file', null);
      throw workflowNotFound(slug);
    },

    async replace(accountId, slug, body) {
      if (body.slug !== undefined && body.slug !== slug) throw invalidRequest('slug', `The body's slug '${body.slug}' differs from the path's '${slug}'`);
      const definition: WorkflowDefinition = { ...body, slug };
      check(accountId, definition);
      const updated = await deps.workflows.update(accountId, definition);
      if (updated === null) throw workflowNotFound(slug);
      return workflowView(updated.definition, scopeOf(accountId), updated);
    },

    async remove(accountId, slug) {
      if (!(await deps.workflows.delete(accountId, slug))) throw workflowNotFound(slug);
    },

    async run(accountId, slug, body) {
      if (body.metadata !== undefined && exceedsDepth(body.metadata, MAX_METADATA_DEPTH)) {
        throw invalidRequest('metadata', `metadata may nest at most ${MAX_METADATA_DEPTH} levels deep`);
      }
      const workflow = await resolveDefinition(accountId, slug);
      const conversation = body.metadata?.conversation_id ?? body.metadata?.conversationId;
      const record: WorkflowRunRecord = {
        id: newId('exec_'),
        accountId,
        status: 'running',
        workflow,
        task: body.task,
        metadata: body.metadata ?? {},
        conversationId: typeof conversation === 'string' ? conversation : null,
        finalAnswer: null,
        error: null,
        checkpoint: null,
        createdAt: new Date().toISOString(),
        completedAt: null,
      };
      const account = await deps.concurrency.limits(accountId, { onRequest: true });
      const limits = account?.limits ?? null;
      // The place is taken before anything is recorded, atomically, so a refused run leaves nothing behind.
      const place = await deps.concurrency.acquire(accountId, record.id, { ...(limits === null ? {} : { limits }), onRequest: true });
      if (place.status === 'full' && limits !== null) {
        deps.metrics.queueRejected?.(account?.tier ?? 'unknown');
        throw queueFull(limits.concurrent, limits.queueSize, queueRetryAfterSeconds(estimatedRunMs(workflow.steps.length), limits.concurrent));
      }
      const queued = place.status === 'queued';
      // A queued run's actor exists before its record, so a promotion that comes right after the
      // insert finds it; it does nothing until then.
      if (queued) dispatch(deps.supervisor, { type: 'workflowRuns.start', record, resume: false, queued: true, traceparent: currentTraceparent() });
      try {
        await deps.runs.insert(record, owner, leaseMs);
      } catch (error) {
        deps.concurrency.release(accountId, record.id);
        if (queued) void cancelLocal(record.id);
        throw error;
      }
      if (!queued) {
        dispatch(deps.supervisor, { type: 'workflowRuns.start', record, resume: false, traceparent: currentTraceparent() });
        return runView(record);
      }
      const position = place.status === 'queued' ? place.position : 0;
      return {
        ...runView(record),
        status: 'queued',
        queue_position: position,
        message: `Queued at position ${position}: the account runs at most ${limits?.concurrent ?? 0} executions at once, and this run starts when a slot frees`,
      };
    },

    async status(accountId, id) {
      const record = await deps.runs.get(accountId, id);
      if (record === null) throw executionNotFound(id);
      const queued = record.status === 'running' && (await deps.concurrency.state(accountId, id)) === 'queued';
      return statusView(record, queued);
    },

    async cancel(accountId, id) {
      const record = await deps.runs.get(accountId, id);
      if (record === null) throw executionNotFound(id);
      if (record.status !== 'running') throw executionNotCancellable(id, record.status);
      // The owner (on whichever worker or node) aborts its calls and records the cancel before it acknowledges.
      await deps.coordination.broadcastAndAwait(CANCEL_CHANNEL, id, BROADCAST_TIMEOUT_MS);
      let after = await deps.runs.get(accountId, id);
      if (after !== null && after.status === 'running') {
        // No live owner took it (its worker died): close it here; `done` goes out all the same.
        const emitter = createRunEmitter(deps.coordination, id, after.checkpoint?.lastSeq ?? 0, deps.logger);
        const closed = await closeRun(deps, emitter, id, 'cancelled', null, Date.now());
        // Its queue place (or an orphan's slot) goes to the next execution.
        if (closed !== null) deps.concurrency.release(accountId, id);
        after = closed ?? (await deps.runs.get(accountId, id));
      }
      if (after === null) throw executionNotFound(id);
      if (after.status !== 'cancelled') throw executionNotCancellable(id, after.status);
      return statusView(after);
    },

    async decide(accountId, executionId, approvalId, decision, reason) {
      const approval = await deps.approvals.get(accountId, approvalId);
      if (approval === null || approval.executionId !== executionId) throw approvalNotFound(approvalId);
      if (approval.status !== 'pending') throw approvalAlreadyDecided(approvalId, approval.status);
      const decided = await deps.approvals.decide(approvalId, decision, reason, new Date());
      if (decided === null) {
        const current = await deps.approvals.getById(approvalId);
        throw approvalAlreadyDecided(approvalId, current?.status ?? 'decided');
      }
      // Recorded: the owner applies it (approval_resolved, then the tool or the rejection) before acknowledging.
      // An owner that is gone finds the decision in the store when its run is taken over.
      await deps.coordination.broadcastAndAwait(DECISION_CHANNEL, JSON.stringify({ executionId, approvalId }), BROADCAST_TIMEOUT_MS);
      return approvalView(decided);
    },

    async listRuns(accountId, query) {
      const page = await deps.runs.listByAccount(accountId, query);
      const runs = await Promise.all(
        page.items.map(async (record) => statusView(record, record.status === 'running' && (await deps.concurrency.state(accountId, record.id)) === 'queued')),
      );
      return { runs, nextCursor: page.nextCursor };
    },

    async listApprovals(accountId, status) {
      const list = await deps.approvals.list(accountId, status, APPROVAL_LIST_LIMIT);
      return { approvals: list.map(approvalView) };
    },

    async openStream(accountId, id, lastEventId) {
      const record = await deps.runs.get(accountId, id);
      if (record === null) throw executionNotFound(id);
      const trimmed = lastEventId.trim();
      const after = /^\d{1,15}$/.test(trimmed) ? Number(trimmed) : 0;
      const terminalAtOpen = isTerminalRun(record.status);
      return (sink) => feed(sink, record, after, terminalAtOpen);
    },

    async stop() {
      clearInterval(renewTimer);
      if (claimTimer !== null) clearInterval(claimTimer);
      await unsubscribeDecisions();
      await unsubscribeCancels();
      await unsubscribeSlots();
      // Runs stop here; paused ones are handed over at once (their state is the checkpoint),
      // the others keep their lease until it lapses and are then failed as interrupted.
      stop(deps.supervisor);
      await deps.runs.releasePaused(owner).catch((err: unknown) => deps.logger.warn({ err }, 'handing over paused workflow runs failed'));
    },
  };

  function feed(sink: SseSink, record: WorkflowRunRecord, afterSeq: number, terminalAtOpen: boolean): void {
    deps.metrics.sseOpened();
    let closed = false;
    let sawDone = false;
    let unfollow: (() => Promise<void>) | null = null;
    const heartbeat = setInterval(() => sink.comment('ping'), deps.heartbeatMs ?? HEARTBEAT_MS);
    sink.onClose(() => {
      closed = true;
      clearInterval(heartbeat);
      deps.metrics.sseClosed();
      void unfollow?.();
    });
    deps.coordination
      .followEvents(streamOf(record.id), afterSeq, (event) => {
        if (closed) return;
        // false: the sink closed (the client left, or lagged too far and may resume by id).
        if (!sink.send({ id: event.seq, event: event.type, data: event.data })) return;
        deps.metrics.sseEventsSent(1);
        if (event.type === WorkflowEvent.DONE) {
          sawDone = true;
          sink.end();
        }
      })
      .then(
        (stopFollowing) => {
          if (closed) {
            void stopFollowing();
            return;
          }
          unfollow = stopFollowing;
          if (terminalAtOpen && !sawDone) {
            // Resumed after `done`, or the events expired (24 h) or were lost with an in-process
            // stream: nothing more will come, so end (saying how it ended to a fresh subscriber).
            if (afterSeq === 0) {
              sink.send({ event: WorkflowEvent.DONE, data: JSON.stringify({ execution_id: record.id, status: record.status, final_answer: record.finalAnswer }) });
            }
            sink.end();
          }
        },
        (err: unknown) => {
          deps.logger.error({ err, executionId: record.id }, 'following a workflow event stream failed');
          sink.end();
        },
      );
  }
}
