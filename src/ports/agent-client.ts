/**
 * Port: calling an agent over Baton's protocol (spec §2.8). The HTTP adapter
 * (src/adapters/agent-http) implements it; actors and services depend only on this.
 */
import type { ExecuteRequest } from '../schemas/agent-protocol.js';
import type { ExecuteOutcome, HealthOutcome, InfoOutcome } from './agent-outcomes.js';

export interface ProbeOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly maxBytes?: number;
}

export interface ExecuteOptions {
  /** Overall deadline; default `request.metadata.timeout` (the budget the agent was given). */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** Body cap in bytes; default 1 MiB. For a stream it caps the whole stream. */
  readonly maxBytes?: number;
  /** W3C trace context sent as the `traceparent` header, so the agent's spans join the trace. */
  readonly traceparent?: string;
}

/** Receives each `{ "chunk": "…" }` of a streamed answer as it arrives. */
export type ChunkListener = (text: string) => void;

export interface AgentClient {
  /** GET /health; `healthy` says whether the agent may be selected. */
  getHealth(baseUrl: string, options?: ProbeOptions): Promise<HealthOutcome>;
  /** GET /info, validated against §2.8. */
  getInfo(baseUrl: string, options?: ProbeOptions): Promise<InfoOutcome>;
  /** POST /execute; accepts a JSON answer (or an event stream, whose chunks are dropped). */
  execute(baseUrl: string, body: ExecuteRequest, options?: ExecuteOptions): Promise<ExecuteOutcome>;
  /** POST /execute asking for an event stream; chunks go to `onChunk` live, in order. */
  executeStreaming(
    baseUrl: string,
    body: ExecuteRequest,
    onChunk: ChunkListener,
    options?: ExecuteOptions,
  ): Promise<ExecuteOutcome>;
  /** Closes the dispatcher if this client created it. */
  close(): Promise<void>;
}
