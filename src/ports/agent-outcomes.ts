/**
 * What a call to an agent can come to. Every failure is data, never a thrown exception, so
 * callers (actors, the registration route, benches) switch on `kind` and nothing escapes.
 *
 * | kind             | meaning                                                                  |
 * |------------------|--------------------------------------------------------------------------|
 * | refused          | no connection: ECONNREFUSED, unresolvable name, unreachable network       |
 * | reset            | the connection broke before a whole response arrived                      |
 * | timeout          | the call's deadline (for execute: metadata.timeout) passed                |
 * | aborted          | the caller's signal aborted the call (not the agent's fault)              |
 * | agent_error      | the agent reported failure: `{ result: null, metadata, error }`           |
 * | http_status      | a non-2xx answer without a protocol failure body                          |
 * | invalid_json     | a 2xx answer whose body is not JSON                                       |
 * | invalid_shape    | JSON that does not match the §2.8 payload                                 |
 * | too_large        | the body went over the size cap; reading stopped there                    |
 * | url_not_allowed  | the URL policy refused the URL or the address it resolved to             |
 */
import type { UrlNotAllowedReason } from '../domain/url-policy.js';
import type { AgentHealth, AgentInfo } from '../schemas/agent-protocol.js';

export const AgentFailureKind = {
  REFUSED: 'refused',
  RESET: 'reset',
  TIMEOUT: 'timeout',
  ABORTED: 'aborted',
  AGENT_ERROR: 'agent_error',
  HTTP_STATUS: 'http_status',
  INVALID_JSON: 'invalid_json',
  INVALID_SHAPE: 'invalid_shape',
  TOO_LARGE: 'too_large',
  URL_NOT_ALLOWED: 'url_not_allowed',
} as const;
export type AgentFailureKind = (typeof AgentFailureKind)[keyof typeof AgentFailureKind];

export interface AgentCallFailure {
  readonly ok: false;
  readonly kind: AgentFailureKind;
  readonly message: string;
  /** HTTP status, when a response head arrived. */
  readonly status?: number;
  /** USD the agent reported in a failure body's metadata.cost; it still counts toward cost. */
  readonly cost?: number;
  /** Which policy rule refused the URL, for `url_not_allowed`. */
  readonly reason?: UrlNotAllowedReason;
  readonly durationMs: number;
}

/** A success body's metadata as Baton keeps it: the known fields only, gaps filled or marked. */
export interface SuccessMetadata {
  /** USD the agent reported; null when it reported none (the caller charges the base price instead). */
  readonly cost: number | null;
  /** Milliseconds the agent reported, or Baton's own measure of the call when it reported none. */
  readonly duration: number;
  readonly model?: string;
  readonly tokensUsed?: { readonly input: number; readonly output: number };
}

export interface ExecuteSuccess {
  readonly ok: true;
  readonly status: number;
  readonly result: Readonly<Record<string, unknown>>;
  readonly metadata: SuccessMetadata;
  /** True when the agent answered with an event stream. */
  readonly streamed: boolean;
  readonly durationMs: number;
}
export type ExecuteOutcome = ExecuteSuccess | AgentCallFailure;

export interface InfoSuccess {
  readonly ok: true;
  readonly info: AgentInfo;
  readonly durationMs: number;
}
export type InfoOutcome = InfoSuccess | AgentCallFailure;

export interface HealthSuccess {
  readonly ok: true;
  readonly health: AgentHealth;
  /** 2xx and `status: "healthy"`; an agent answering `unhealthy` (with any status) is reachable but not usable. */
  readonly healthy: boolean;
  readonly status: number;
  readonly durationMs: number;
}
export type HealthOutcome = HealthSuccess | AgentCallFailure;
