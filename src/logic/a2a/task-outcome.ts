/**
 * What an A2A agent's answer to `message/send` (or `tasks/get`) means for Baton (A2A v0.3 wire
 * shapes): a Message, or a Task whose state is terminal (completed → the answer from its
 * artifacts' parts, else its status message; failed, rejected, canceled → the agent failed;
 * input-required, auth-required → failed, since Baton sends one message per call and cannot
 * answer), or still running (submitted, working, unknown → ask again with `tasks/get`).
 */

export type A2aReading =
  | { readonly kind: 'answer'; readonly result: Readonly<Record<string, unknown>> }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'running'; readonly taskId: string }
  | { readonly kind: 'invalid'; readonly message: string };

const MAX_MESSAGE = 1_000;

export function readA2aResult(result: unknown): A2aReading {
  if (typeof result !== 'object' || result === null) return { kind: 'invalid', message: 'the JSON-RPC result is not an object' };
  const raw = result as Record<string, unknown>;
  if (raw.kind === 'message') return { kind: 'answer', result: answerOf(partsOf(raw.parts), raw) };
  if (raw.kind !== 'task' || typeof raw.id !== 'string') return { kind: 'invalid', message: "the result is neither a 'message' nor a 'task'" };
  const status = (typeof raw.status === 'object' && raw.status !== null ? raw.status : {}) as Record<string, unknown>;
  const state = typeof status.state === 'string' ? status.state : 'unknown';
  const statusText = textOf(partsOf((status.message as { parts?: unknown } | undefined)?.parts));
  switch (state) {
    case 'completed': {
      const artifacts = Array.isArray(raw.artifacts) ? raw.artifacts : [];
      const parts = artifacts.flatMap((a) => partsOf((a as { parts?: unknown } | null)?.parts));
      return { kind: 'answer', result: answerOf(parts.length > 0 ? parts : partsOf((status.message as { parts?: unknown } | undefined)?.parts), raw) };
    }
    case 'failed':
    case 'rejected':
    case 'canceled':
      return { kind: 'failed', message: clip(`the A2A task ended ${state}${statusText === '' ? '' : `: ${statusText}`}`) };
    case 'input-required':
    case 'auth-required':
      return {
        kind: 'failed',
        message: clip(`the A2A agent asked for more input (${state}), which Baton cannot give within one call${statusText === '' ? '' : `: ${statusText}`}`),
      };
    default:
      return { kind: 'running', taskId: raw.id };
  }
}

type Part = Readonly<Record<string, unknown>>;

function partsOf(value: unknown): Part[] {
  return Array.isArray(value) ? value.filter((p): p is Part => typeof p === 'object' && p !== null) : [];
}

function textOf(parts: readonly Part[]): string {
  return parts
    .filter((p) => p.kind === 'text' && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join('\n');
}

/** `answer` (the text parts, so aggregation and workflows read it), `data` (data parts), and the task's ids. */
function answerOf(parts: readonly Part[], raw: Record<string, unknown>): Record<string, unknown> {
  const data = parts.filter((p) => p.kind === 'data').map((p) => p.data);
  return {
    answer: textOf(parts),
    ...(data.length === 0 ? {} : { data: data.length === 1 ? data[0] : data }),
    a2a: {
      kind: raw.kind,
      ...(typeof raw.id === 'string' && raw.kind === 'task' ? { taskId: raw.id } : {}),
      ...(typeof raw.contextId === 'string' ? { contextId: raw.contextId } : {}),
    },
  };
}

function clip(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}
