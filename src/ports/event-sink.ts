/**
 * Port: where a service writes a live stream of events (a workflow run's, an execution's status).
 * The HTTP layer implements it as Server-Sent Events (src/http/sse-sink.ts).
 */

export interface SseEvent {
  readonly id?: string | number;
  readonly event: string;
  /** Already serialized (JSON); newlines are split into several `data:` lines. */
  readonly data: string;
}

export interface SseSink {
  /** Queues or writes one event; false when the sink is closed (or was closed for lagging). */
  send(event: SseEvent): boolean;
  /** A `: text` comment line, e.g. heartbeats and the final comment on shutdown. */
  comment(text: string): boolean;
  /** Ends the stream after what is queued has been handed to uWS. */
  end(): void;
  onClose(listener: () => void): void;
  readonly closed: boolean;
  /** Bytes waiting in this sink's own queue (uWS's socket buffer not included). */
  readonly bufferedBytes: number;
}
