/**
 * The A2A request handler for one caller: the SDK's `A2ARequestHandler` interface implemented
 * on workflow runs, for the SDK's JSON-RPC transport handler to drive. Each method needs the
 * permission of its REST counterpart: starting a task `workflows:run`, answering an
 * input-required task `workflows:approve`, reading or following one `workflows:read`,
 * cancelling `workflows:run`. Baton's own errors become JSON-RPC errors (see toA2aError).
 */
import { randomUUID } from 'node:crypto';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
} from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import { LegacyA2AError } from '@a2a-js/sdk/compat/v0_3/server';
import { PushNotificationNotSupportedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { grants, Permission } from '../../services/auth/permissions.js';
import type { KeyPrincipal } from '../../services/auth/principal.js';
import { ApiError, ErrorCode } from '../../domain/errors.js';
import { waitFor } from '../mcp/wait.js';
import { RunWorkflowBody } from '../../schemas/workflows.js';
import { compile } from '../../schemas/validation.js';
import type { WorkflowsService } from '../../services/workflows/service.js';
import { WorkflowEvent } from '../../logic/workflow-events.js';
import { buildCard, toCoreCard } from './card.js';
import { followRun } from './follow.js';
import { EventTranslator, isFinalState, stateOf, stateOfUpdate, taskOf, type PendingApproval, type RunView } from './translate.js';

/** Longest a blocking message/send waits for its task to settle; past it the task is returned as it is. */
export const MAX_BLOCKING_WAIT_MS = 330_000;
/** JSON-RPC error code of Baton's own refusals (403, 429, 503…): `data` carries the REST error body. */
export const BATON_ERROR_CODE = -32099;
const MAX_PARTS = 100;
const APPROVE = new Set(['approve', 'approved', 'yes']);
const REJECT = new Set(['reject', 'rejected', 'no']);

const runBody = compile(RunWorkflowBody);

export interface A2aServices {
  readonly workflows: WorkflowsService;
  readonly publicUrl: string;
}

export class BatonA2aHandler implements A2ARequestHandler {
  readonly #principal: KeyPrincipal;
  readonly #services: A2aServices;
  readonly #signal: AbortSignal;

  constructor(principal: KeyPrincipal, services: A2aServices, signal: AbortSignal) {
    this.#principal = principal;
    this.#services = services;
    this.#signal = signal;
  }

  get #accountId(): string {
    return this.#principal.account.id;
  }

  async getAgentCard(): Promise<AgentCard> {
    return toCoreCard(await buildCard(this.#principal, this.#services.workflows, this.#services.publicUrl));
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return this.getAgentCard();
  }

  async sendMessage(params: SendMessageRequest, _context: ServerCallContext): Promise<Message | Task> {
    return guard(async () => {
      const started = await this.#start(params);
      const blocking = params.configuration?.returnImmediately !== true;
      if (!blocking) return this.#task(started.view);
      const waited = await waitFor(
        () => this.#view(started.view.execution_id),
        (view) => isFinalState(stateOf(view)) || (view.waiting_for_approval !== null && view.waiting_for_approval !== started.decided),
        MAX_BLOCKING_WAIT_MS,
        this.#signal,
      );
      return this.#task(waited.value);
    });
  }

  async *sendMessageStream(params: SendMessageRequest, _context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const started = await guard(() => this.#start(params));
    const view = started.view;
    yield { payload: { $case: 'task', value: await guard(() => this.#task(view)) } };
    // The whole log from its start: nothing between starting the run and following it is lost.
    // A decision continues after the approval it answered; the stream ends at the next pause or the end.
    let skipping = started.decided !== null;
    const translator = new EventTranslator(view.execution_id, contextOfTask(view));
    for await (const event of guardStream(followRun(this.#services.workflows, this.#accountId, view.execution_id, 0, this.#signal))) {
      // (`done` is never skipped: a log that lost the answered request still ends the stream with the outcome.)
      if (skipping && event.event !== WorkflowEvent.DONE) {
        if (event.event === WorkflowEvent.APPROVAL_REQUEST && approvalIdOf(event.data) === started.decided) skipping = false;
        continue;
      }
      for (const update of translator.translate(event)) {
        yield update;
        const state = stateOfUpdate(update);
        if (state !== null && (isFinalState(state) || state === TaskState.TASK_STATE_INPUT_REQUIRED)) return;
      }
    }
  }

  async getTask(params: GetTaskRequest, _context: ServerCallContext): Promise<Task> {
    return guard(async () => {
      this.#require(Permission.WORKFLOWS_READ);
      return this.#task(await this.#view(params.id));
    });
  }

  async cancelTask(params: CancelTaskRequest, _context: ServerCallContext): Promise<Task> {
    return guard(async () => {
      this.#require(Permission.WORKFLOWS_RUN);
      const cancelled = await this.#services.workflows.cancel(this.#accountId, params.id);
      return this.#task(cancelled);
    });
  }

  /**
   * Follows a task from the start of its log to its end: every update it had, then the live
   * ones. Pauses for approval are reported (input-required) without ending the stream.
   */
  async *resubscribe(params: SubscribeToTaskRequest, _context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const view = await guard(async () => {
      this.#require(Permission.WORKFLOWS_READ);
      return this.#view(params.id);
    });
    const translator = new EventTranslator(view.execution_id, contextOfTask(view));
    const events = followRun(this.#services.workflows, this.#accountId, view.execution_id, 0, this.#signal);
    for await (const event of guardStream(events)) {
      for (const update of translator.translate(event)) yield update;
    }
  }

  async createTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError('Push notifications are not supported; use message/stream or tasks/resubscribe');
  }

  async getTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError('Push notifications are not supported');
  }

  async listTaskPushNotificationConfigs(): Promise<never> {
    throw new PushNotificationNotSupportedError('Push notifications are not supported');
  }

  async deleteTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError('Push notifications are not supported');
  }

  async listTasks(): Promise<never> {
    throw new UnsupportedOperationError('Listing tasks is not supported; use GET /v1/approvals or the workflow routes');
  }

  /** A new run for a message without a task, or the decision for the task's pending approval. */
  async #start(params: SendMessageRequest): Promise<{ view: RunView; decided: string | null }> {
    const message = params.message;
    if (message === undefined) throw LegacyA2AError.invalidParams('params.message is required');
    if (message.parts.length === 0 || message.parts.length > MAX_PARTS) throw LegacyA2AError.invalidParams(`A message has 1 to ${MAX_PARTS} parts`);
    if (message.taskId !== '') return this.#answer(message);
    this.#require(Permission.WORKFLOWS_RUN);
    const slug = await this.#workflowOf(message, params.metadata);
    const task = textOf(message);
    if (task === '') throw LegacyA2AError.invalidParams('The message has no text or data to give the workflow as its task');
    const metadata: Record<string, unknown> = { ...(message.metadata ?? {}), conversation_id: message.contextId !== '' ? message.contextId : randomUUID() };
    delete metadata.skill;
    delete metadata.workflow;
    const started = await this.#services.workflows.run(this.#accountId, slug, runBody.parse({ task, metadata }));
    return { view: await this.#view(started.execution_id), decided: null };
  }

  /** A message on an input-required task decides its approval: "approve" or "reject". */
  async #answer(message: Message): Promise<{ view: RunView; decided: string | null }> {
    this.#require(Permission.WORKFLOWS_APPROVE);
    const view = await this.#view(message.taskId);
    const approvalId = view.waiting_for_approval;
    if (view.status !== 'running' || approvalId === null) {
      throw LegacyA2AError.invalidParams(`Task ${view.execution_id} is ${view.status} and not waiting for input; start a new task (no taskId) instead`);
    }
    const { decision, reason } = decisionOf(message);
    await this.#services.workflows.decide(this.#accountId, view.execution_id, approvalId, decision, reason);
    return { view: await this.#view(view.execution_id), decided: approvalId };
  }

  async #workflowOf(message: Message, requestMetadata: Record<string, unknown> | undefined): Promise<string> {
    const named = [message.metadata?.skill, message.metadata?.workflow, requestMetadata?.skill, requestMetadata?.workflow].find((v) => v !== undefined);
    if (named !== undefined) {
      if (typeof named !== 'string' || named === '' || named.length > 100) throw LegacyA2AError.invalidParams('metadata.skill must be a workflow slug (a string)');
      return named;
    }
    const listed = await this.#services.workflows.list(this.#accountId);
    if (listed.workflows.length === 1) return listed.workflows[0]!.slug;
    throw LegacyA2AError.invalidParams(
      listed.workflows.length === 0
        ? 'This key sees no workflows to run'
        : `Name the workflow in message.metadata.skill: one of ${listed.workflows.slice(0, 20).map((w) => w.slug).join(', ')}`,
    );
  }

  async #view(id: string): Promise<RunView> {
    return this.#services.workflows.status(this.#accountId, id);
  }

  async #task(view: RunView): Promise<Task> {
    return taskOf(view, view.waiting_for_approval === null ? null : await this.#approval(view));
  }

  async #approval(view: RunView): Promise<PendingApproval | null> {
    if (!grants(this.#principal.key.permissions, Permission.WORKFLOWS_READ)) return null;
    const pending = await this.#services.workflows.listApprovals(this.#accountId, 'pending');
    return pending.approvals.find((a) => a.approval_id === view.waiting_for_approval) ?? null;
  }

  #require(permission: Permission): void {
    if (!grants(this.#principal.key.permissions, permission)) {
      throw new ApiError(ErrorCode.FORBIDDEN, 'Insufficient permissions', {
        requiredPermission: permission,
        details: `This key lacks the '${permission}' permission`,
      });
    }
  }
}

function contextOfTask(view: RunView): string {
  return view.conversation_id ?? view.execution_id;
}

function approvalIdOf(data: string): string | null {
  try {
    const parsed = JSON.parse(data) as { approval_id?: unknown };
    return typeof parsed.approval_id === 'string' ? parsed.approval_id : null;
  } catch {
    return null;
  }
}

/** The workflow's task: the text parts, then each data part as JSON. */
function textOf(message: Message): string {
  const pieces: string[] = [];
  for (const part of message.parts) {
    if (part.content?.$case === 'text') pieces.push(part.content.value);
    else if (part.content?.$case === 'data') pieces.push(JSON.stringify(part.content.value));
  }
  return pieces.join('\n').trim();
}

function decisionOf(message: Message): { decision: 'approved' | 'rejected'; reason: string | null } {
  for (const part of message.parts) {
    const content = part.content;
    if (content?.$case === 'data' && typeof content.value === 'object' && content.value !== null) {
      const value = content.value as { decision?: unknown; reason?: unknown };
      const word = typeof value.decision === 'string' ? value.decision.toLowerCase() : '';
      const reason = typeof value.reason === 'string' ? value.reason.slice(0, 2000) : null;
      if (APPROVE.has(word)) return { decision: 'approved', reason };
      if (REJECT.has(word)) return { decision: 'rejected', reason };
    }
    if (content?.$case === 'text') {
      const word = content.value.trim().toLowerCase();
      if (APPROVE.has(word)) return { decision: 'approved', reason: null };
      if (REJECT.has(word)) return { decision: 'rejected', reason: null };
    }
  }
  throw LegacyA2AError.invalidParams('The task waits for an approval decision: send the text "approve" or "reject" (or a data part { "decision": "approve" | "reject", "reason"?: "…" })');
}

/** Baton's errors as A2A errors: unknown tasks and uncancellable ones have their own codes. */
export function toA2aError(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.code === ErrorCode.EXECUTION_NOT_FOUND) return new TaskNotFoundError(error.message);
  if (error.code === ErrorCode.EXECUTION_NOT_CANCELLABLE) return new TaskNotCancelableError(error.message);
  const data = { error: error.code, message: error.message, ...error.extra };
  if (error.status === 400 || error.code === ErrorCode.WORKFLOW_NOT_FOUND || error.code === ErrorCode.APPROVAL_NOT_FOUND || error.code === ErrorCode.APPROVAL_ALREADY_DECIDED) {
    return LegacyA2AError.invalidParams(error.message, data);
  }
  return new LegacyA2AError(BATON_ERROR_CODE, error.message, data);
}

async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toA2aError(error);
  }
}

async function* guardStream<T>(source: AsyncGenerator<T>): AsyncGenerator<T> {
  try {
    yield* source;
  } catch (error) {
    throw toA2aError(error);
  }
}
