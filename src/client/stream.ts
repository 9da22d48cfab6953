/**
 * A workflow run's events as an async iterator. The stream is read with fetch (so the API key
 * goes in a header, which EventSource cannot do) and parsed with eventsource-parser; when the
 * connection drops before the `done` event, it reconnects with `Last-Event-ID` set to the last id
 * received, so no event is lost or repeated. Ends after `done`.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { BatonApiError } from './errors.js';
import type { paths } from './schema.js';
import { sleep } from './wait.js';

/** One event: `{ id, event, data }`, discriminated by `event` (chunk, tool_executing, …, done). */
export type WorkflowEvent = paths['/api/v1/workflows/execute/{id}/stream']['get']['responses'][200]['content']['text/event-stream'];

export interface StreamOptions {
  /** Start after this event id (a previous iteration's last `id`); default: from the first event. */
  readonly lastEventId?: string;
  /** Reconnection attempts in a row before giving up; default 5. */
  readonly maxRetries?: number;
  /** Pause before reconnecting, doubled on each failed attempt in a row; default 250 ms. */
  readonly retryDelayMs?: number;
  readonly signal?: AbortSignal;
}

export interface StreamTarget {
  readonly baseUrl: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly fetch: typeof fetch;
}

export async function* workflowEvents(target: StreamTarget, executionId: string, options: StreamOptions = {}): AsyncGenerator<WorkflowEvent> {
  let lastEventId = options.lastEventId ?? '';
  let failures = 0;
  for (;;) {
    let response: Response;
    try {
      response = await target.fetch(`${target.baseUrl}/api/v1/workflows/execute/${encodeURIComponent(executionId)}/stream`, {
        headers: { ...target.headers, Accept: 'text/event-stream', ...(lastEventId !== '' ? { 'Last-Event-ID': lastEventId } : {}) },
        ...(options.signal !== undefined ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      await backOff(++failures, options, error);
      continue;
    }
    if (!response.ok) {
      const body: unknown = await response.json().catch(() => null);
      // The catalogue says which refusals may pass on a later try (503, 429…); an unknown run or a bad key will not.
      const refused = new BatonApiError(response.status, body, response.headers.get('Retry-After'));
      if (!refused.retryable) throw refused;
      await backOff(++failures, options, refused);
      continue;
    }
    try {
      for await (const message of messages(response)) {
        failures = 0;
        if (message.id !== undefined) lastEventId = message.id;
        const event = { id: message.id ?? '', event: message.event ?? 'message', data: JSON.parse(message.data) as unknown } as WorkflowEvent;
        yield event;
        if (event.event === 'done') return;
      }
    } catch (error) {
      if (options.signal?.aborted) throw error;
    }
    // The stream ended (or broke) before `done`: resume after the last event received.
    await backOff(++failures, options, new Error('workflow stream closed before its done event'));
  }
}

async function backOff(failures: number, options: StreamOptions, cause: unknown): Promise<void> {
  if (failures > (options.maxRetries ?? 5)) throw cause;
  await sleep((options.retryDelayMs ?? 250) * 2 ** (failures - 1), options.signal);
}

async function* messages(response: Response): AsyncGenerator<EventSourceMessage> {
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => queue.push(message) });
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (queue.length > 0) yield queue.shift()!;
  }
}
