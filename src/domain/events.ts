/** Entries of a run's event stream (workflow SSE, A2A resubscribe) and their retention. */
/** One event of an event stream (workflow SSE events). `data` is already serialized JSON. */
export interface StreamEvent {
  /** 1, 2, 3… per stream, assigned by `appendEvent`. */
  readonly seq: number;
  readonly type: string;
  readonly data: string;
}
/** Most events one stream keeps; older ones are trimmed (documented in docs/workflows.md). */
export const EVENT_STREAM_MAX_LEN = 10_000;
/** Streams expire this long after their last append. */
export const EVENT_STREAM_TTL_MS = 24 * 3_600_000;
