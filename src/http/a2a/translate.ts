/**
 * Workflow runs as A2A tasks: the task id is the execution id, the context id the run's
 * conversation id. A run paused on an approval is `input-required` (its status message names the
 * tool call); the final answer is the `answer` artifact. Events of the run's log become task
 * updates, each tagged with its log sequence number (`metadata.eventId`).
 */
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Artifact, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import { WorkflowEvent } from '../../logic/workflow-events.js';

export const ANSWER_ARTIFACT_ID = 'answer';

/** The status view of a run (GET /v1/workflows/execute/:id). */
export interface RunView {
  readonly execution_id: string;
  readonly status: string;
  readonly workflow_slug: string;
  readonly conversation_id: string | null;
  readonly final_answer: string | null;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly waiting_for_approval: string | null;
  readonly completed_at: string | null;
  readonly created_at: string;
}

/** What an approval request says, for the input-required message. */
export interface PendingApproval {
  readonly approval_id: string;
  readonly tool_name: string;
  readonly tool_input: unknown;
  readonly expires_at?: string;
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' };
}

export function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: '' };
}

export function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

export function contextOf(view: Pick<RunView, 'conversation_id' | 'execution_id'>): string {
  return view.conversation_id ?? view.execution_id;
}

export function stateOf(view: RunView): TaskState {
  switch (view.status) {
    case 'queued':
      return TaskState.TASK_STATE_SUBMITTED;
    case 'completed':
      return TaskState.TASK_STATE_COMPLETED;
    case 'failed':
      return TaskState.TASK_STATE_FAILED;
    case 'cancelled':
      return TaskState.TASK_STATE_CANCELED;
    default:
      return view.waiting_for_approval !== null ? TaskState.TASK_STATE_INPUT_REQUIRED : TaskState.TASK_STATE_WORKING;
  }
}

export function isFinalState(state: TaskState): boolean {
  return state === TaskState.TASK_STATE_COMPLETED || state === TaskState.TASK_STATE_FAILED || state === TaskState.TASK_STATE_CANCELED;
}

export function approvalMessage(taskId: string, contextId: string, approval: PendingApproval): Message {
  return agentMessage(taskId, contextId, [
    textPart(`Paused: the tool call '${approval.tool_name}' needs approval. Reply on this task with "approve" or "reject" `
      + '(a key with workflows:approve), optionally as a data part { "decision": "approve" | "reject", "reason": "…" }.'),
    dataPart({ approval_id: approval.approval_id, tool_name: approval.tool_name, tool_input: approval.tool_input ?? null, expires_at: approval.expires_at ?? null }),
  ]);
}

function answerArtifact(text: string): Artifact {
  return { artifactId: ANSWER_ARTIFACT_ID, name: 'answer', description: 'The final answer of the workflow', parts: [textPart(text)], metadata: undefined, extensions: [] };
}

/** The task as the run's status shows it now. */
export function taskOf(view: RunView, approval: PendingApproval | null): Task {
  const contextId = contextOf(view);
  const state = stateOf(view);
  let message: Message | undefined;
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED && approval !== null) message = approvalMessage(view.execution_id, contextId, approval);
  if (state === TaskState.TASK_STATE_FAILED && view.error !== null) {
    message = agentMessage(view.execution_id, contextId, [textPart(view.error.message), dataPart(view.error)]);
  }
  return {
    id: view.execution_id,
    contextId,
    status: { state, message, timestamp: view.completed_at ?? new Date().toISOString() },
    artifacts: view.final_answer !== null ? [answerArtifact(view.final_answer)] : [],
    history: [],
    metadata: { workflow: view.workflow_slug, execution_id: view.execution_id },
  };
}

export interface LoggedEvent {
  /** Sequence number in the run's log; absent for a summary of a run whose log is gone. */
  readonly id?: string | number;
  readonly event: string;
  readonly data: string;
}

/**
 * Turns the events of one run's log into task updates, keeping what it needs across events
 * (whether the answer artifact was started, the last error).
 */
export class EventTranslator {
  #answerStarted = false;
  #lastError: unknown = null;

  constructor(private readonly taskId: string, private readonly contextId: string) {}

  translate(logged: LoggedEvent): StreamResponse[] {
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(logged.data) as Record<string, unknown>;
    } catch {
      return [];
    }
    const metadata = logged.id === undefined ? undefined : { eventId: Number(logged.id), event: logged.event };
    switch (logged.event) {
      case WorkflowEvent.CHUNK: {
        if (typeof data.content !== 'string' || data.content === '') return [];
        const append = this.#answerStarted;
        this.#answerStarted = true;
        return [this.#artifact({ ...answerArtifact(data.content), description: 'The answer as it streams' }, append, false, metadata)];
      }
      case WorkflowEvent.TOOL_EXECUTING:
      case WorkflowEvent.TOOL_RESULT:
      case WorkflowEvent.APPROVAL_RESOLVED:
        return [this.#status(TaskState.TASK_STATE_WORKING, [dataPart({ event: logged.event, ...data })], metadata)];
      case WorkflowEvent.APPROVAL_REQUEST:
        return [this.#statusWith(TaskState.TASK_STATE_INPUT_REQUIRED, approvalMessage(this.taskId, this.contextId, data as unknown as PendingApproval), metadata)];
      case WorkflowEvent.ERROR:
        this.#lastError = data;
        return [];
      case WorkflowEvent.DONE:
        return this.#done(data, metadata);
      default:
        return [];
    }
  }

  #done(data: Record<string, unknown>, metadata: Record<string, unknown> | undefined): StreamResponse[] {
    const out: StreamResponse[] = [];
    const status = data.status;
    if (status === 'completed') {
      // The whole answer replaces what streamed (chunks of earlier steps included).
      if (typeof data.final_answer === 'string') out.push(this.#artifact(answerArtifact(data.final_answer), false, true, metadata));
      out.push(this.#status(TaskState.TASK_STATE_COMPLETED, null, metadata));
    } else if (status === 'failed') {
      const error = this.#lastError as { message?: unknown } | null;
      const parts = error === null ? null : [textPart(typeof error.message === 'string' ? error.message : 'The workflow failed'), dataPart(error)];
      out.push(this.#status(TaskState.TASK_STATE_FAILED, parts, metadata));
    } else {
      out.push(this.#status(TaskState.TASK_STATE_CANCELED, null, metadata));
    }
    return out;
  }

  #status(state: TaskState, parts: Part[] | null, metadata: Record<string, unknown> | undefined): StreamResponse {
    return this.#statusWith(state, parts === null ? undefined : agentMessage(this.taskId, this.contextId, parts), metadata);
  }

  #statusWith(state: TaskState, message: Message | undefined, metadata: Record<string, unknown> | undefined): StreamResponse {
    return {
      payload: {
        $case: 'statusUpdate',
        value: { taskId: this.taskId, contextId: this.contextId, status: { state, message, timestamp: new Date().toISOString() }, metadata },
      },
    };
  }

  #artifact(artifact: Artifact, append: boolean, lastChunk: boolean, metadata: Record<string, unknown> | undefined): StreamResponse {
    return { payload: { $case: 'artifactUpdate', value: { taskId: this.taskId, contextId: this.contextId, artifact, append, lastChunk, metadata } } };
  }
}

/** The state a translated update leaves the task in, if it is a status update. */
export function stateOfUpdate(update: StreamResponse): TaskState | null {
  return update.payload?.$case === 'statusUpdate' ? (update.payload.value.status?.state ?? null) : null;
}
