/**
 * Workflow stream events (spec §6.2, DESIGN §8) and the per-run emitter that appends them to the
 * execution's event stream in order. Appends are chained: chunks forwarded live from a streaming
 * agent (outside the actor's turn) and the actor's own events never overtake each other.
 */
import type { Coordination } from '../ports/coordination.js';

export const WorkflowEvent = {
  CHUNK: 'chunk',
  TOOL_EXECUTING: 'tool_executing',
  TOOL_RESULT: 'tool_result',
  APPROVAL_REQUEST: 'approval_request',
  APPROVAL_RESOLVED: 'approval_resolved',
  ERROR: 'error',
  DONE: 'done',
} as const;
export type WorkflowEvent = (typeof WorkflowEvent)[keyof typeof WorkflowEvent];

/** The event stream of one workflow execution. */
export function streamOf(executionId: string): string {
  return `workflow:${executionId}`;
}

export type EventAppender = Pick<Coordination, 'appendEvent'>;

export interface RunEmitter {
  /** Appends after everything emitted before; resolves with the event's sequence number (0 if it failed). */
  emit(type: WorkflowEvent, data: Readonly<Record<string, unknown>>): Promise<number>;
  /** Sequence number of the last event appended. */
  readonly lastSeq: number;
}

export interface EmitterLogger {
  error(context: object, message: string): void;
}

export function createRunEmitter(appender: EventAppender, executionId: string, lastSeq: number, logger: EmitterLogger): RunEmitter {
  const stream = streamOf(executionId);
  let chain: Promise<unknown> = Promise.resolve();
  let last = lastSeq;
  return {
    emit(type, data) {
      const appended = chain.then(async () => {
        try {
          const event = await appender.appendEvent(stream, type, JSON.stringify(data), last);
          last = event.seq;
          return event.seq;
        } catch (err) {
          // A lost event is logged; the run goes on (its status in the store stays the truth).
          logger.error({ err, executionId, event: type }, 'workflow event not appended');
          return 0;
        }
      });
      chain = appended;
      return appended;
    },
    get lastSeq() {
      return last;
    },
  };
}
