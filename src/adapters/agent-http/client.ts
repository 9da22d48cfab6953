/**
 * The agent protocol client (spec §2.8, §4.13): GET /health, GET /info, POST /execute on an
 * agent's base URL, over the policy-enforcing outbound dispatcher. Every call resolves to an
 * outcome (outcome.ts); no exception escapes. Bodies are read as a stream against a byte cap and
 * validated by the precompiled schemas in schemas.ts.
 */
import { request } from 'undici';
import type { Dispatcher } from 'undici';
import { createOutboundDispatcher } from '../outbound/dispatcher.js';
import type { Resolver } from '../outbound/dispatcher.js';
import { checkUrlSyntax, isUrlNotAllowedError } from '../../domain/url-policy.js';
import type { UrlNotAllowedReason } from '../../domain/url-policy.js';
import { examplesFromInfo } from '../../domain/agent-examples.js';
import { CallDeadline } from './deadline.js';
import type {
  AgentCallFailure,
  AgentFailureKind,
  ExecuteOutcome,
  HealthOutcome,
  InfoOutcome,
  SuccessMetadata,
} from '../../ports/agent-outcomes.js';
import {
  describeErrors,
  validateExecuteFailure,
  validateExecuteSuccess,
  validateHealth,
  validateInfo,
  validateStreamChunk,
} from '../../schemas/agent-protocol.js';
import type { AgentInfo, ExecuteMetadata, ExecuteRequest } from '../../schemas/agent-protocol.js';
import { SseDecoder } from './sse.js';
import type { AgentClient, ChunkListener, ExecuteOptions, ProbeOptions } from '../../ports/agent-client.js';

export type { AgentClient, ChunkListener, ExecuteOptions, ProbeOptions };

/** Default cap on a response body (and on a whole event stream). */
export const DEFAULT_MAX_BYTES = 1024 * 1024;
/** Default deadline for /health and /info. */
export const DEFAULT_PROBE_TIMEOUT_MS = 5_000;
/** Longest agent error message kept; the rest is cut so an agent cannot bloat stored results. */
const MAX_ERROR_MESSAGE = 1_000;

export interface AgentClientOptions {
  /** Lets http and private addresses through (BATON_ALLOW_PRIVATE_URLS). */
  readonly allowPrivate: boolean;
  /** A shared outbound dispatcher; when absent the client creates (and owns) one. */
  readonly dispatcher?: Dispatcher;
  /** Only used when the client creates its dispatcher (tests inject DNS answers). */
  readonly resolver?: Resolver;
  readonly userAgent?: string;
}

interface CallContext {
  readonly dispatcher: Dispatcher;
  readonly allowPrivate: boolean;
  readonly userAgent: string;
}

/** Creates a client; callers should share one per process so keep-alive pools are shared. */
export function createAgentClient(options: AgentClientOptions): AgentClient {
  const owns = options.dispatcher === undefined;
  const dispatcher = options.dispatcher
    ?? createOutboundDispatcher({ allowPrivate: options.allowPrivate, resolver: options.resolver });
  const ctx: CallContext = {
    dispatcher,
    allowPrivate: options.allowPrivate,
    userAgent: options.userAgent ?? 'baton-agent-client/1',
  };
  return {
    getHealth: (baseUrl, probe) => getHealth(ctx, baseUrl, probe ?? {}),
    getInfo: (baseUrl, probe) => getInfo(ctx, baseUrl, probe ?? {}),
    execute: (baseUrl, body, exec) => execute(ctx, baseUrl, body, exec ?? {}, null),
    executeStreaming: (baseUrl, body, onChunk, exec) => execute(ctx, baseUrl, body, exec ?? {}, onChunk),
    close: async () => {
      if (owns) await dispatcher.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------

function failure(
  kind: AgentFailureKind,
  message: string,
  startedMs: number,
  extra?: { readonly status?: number; readonly cost?: number; readonly reason?: UrlNotAllowedReason },
): AgentCallFailure {
  return { ok: false, kind, message, ...extra, durationMs: performance.now() - startedMs };
}

/** The endpoint URL under the agent's base URL (a base path is kept), or the policy refusal. */
function endpoint(ctx: CallContext, baseUrl: string, path: string): string | AgentCallFailure {
  const check = checkUrlSyntax(baseUrl, { allowPrivate: ctx.allowPrivate });
  if (!check.ok) return failure('url_not_allowed', check.message, performance.now(), { reason: check.reason });
  const url = check.url;
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  url.hash = '';
  return url.toString();
}

/**
 * GET of a probe endpoint (/health, /info): the URL policy, a deadline, the size cap and JSON
 * parsing are shared; `interpret` turns the parsed answer into the endpoint's outcome.
 */
async function probe<T>(
  ctx: CallContext,
  baseUrl: string,
  path: string,
  options: ProbeOptions,
  interpret: (status: number, body: unknown, startedMs: number) => T | AgentCallFailure,
): Promise<T | AgentCallFailure> {
  const startedMs = performance.now();
  const url = endpoint(ctx, baseUrl, path);
  if (typeof url !== 'string') return url;
  const deadline = new CallDeadline(options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS, options.signal);
  try {
    const res = await send(ctx, url, 'GET', null, 'application/json', deadline);
    const read = await readJson(res, options.maxBytes ?? DEFAULT_MAX_BYTES, startedMs);
    if (!read.ok) return read;
    return interpret(read.status, read.body, startedMs);
  } catch (err) {
    return classifyError(err, deadline, startedMs);
  } finally {
    deadline.cancel();
  }
}

function getHealth(ctx: CallContext, baseUrl: string, options: ProbeOptions): Promise<HealthOutcome> {
  return probe(ctx, baseUrl, '/health', options, (status, body, startedMs): HealthOutcome => {
    if (validateHealth(body)) {
      const health = { status: body.status, timestamp: body.timestamp };
      const healthy = isSuccess(status) && body.status === 'healthy';
      return { ok: true, health, healthy, status, durationMs: performance.now() - startedMs };
    }
    if (!isSuccess(status)) return failure('http_status', `Agent answered HTTP ${status}`, startedMs, { status });
    return failure('invalid_shape', `Health response ${describeErrors(validateHealth)}`, startedMs, { status });
  });
}

function getInfo(ctx: CallContext, baseUrl: string, options: ProbeOptions): Promise<InfoOutcome> {
  return probe(ctx, baseUrl, '/info', options, (status, body, startedMs): InfoOutcome => {
    if (!isSuccess(status)) return failure('http_status', `Agent answered HTTP ${status}`, startedMs, { status });
    if (!validateInfo(body)) {
      return failure('invalid_shape', `Info response ${describeErrors(validateInfo)}`, startedMs, { status });
    }
    return { ok: true, info: pickInfo(body), durationMs: performance.now() - startedMs };
  });
}

function pickInfo(body: AgentInfo): AgentInfo {
  const examples = examplesFromInfo(body);
  return {
    ...(examples.length > 0 ? { examples } : {}),
    id: body.id,
    name: body.name,
    description: body.description,
    version: body.version,
    capabilities: [...body.capabilities],
    pricing: { model: body.pricing.model, basePrice: body.pricing.basePrice },
  };
}

async function execute(
  ctx: CallContext,
  baseUrl: string,
  body: ExecuteRequest,
  options: ExecuteOptions,
  onChunk: ChunkListener | null,
): Promise<ExecuteOutcome> {
  const startedMs = performance.now();
  const url = endpoint(ctx, baseUrl, '/execute');
  if (typeof url !== 'string') return url;
  let payload: string;
  try {
    payload = JSON.stringify(body);
  } catch (err) {
    // A cyclic or BigInt-bearing context is the caller's bug; still an outcome, not a throw.
    return failure('aborted', `Execute request is not serializable: ${errorMessage(err)}`, startedMs);
  }
  const budgetMs = options.timeoutMs ?? body.metadata.timeout;
  const deadline = new CallDeadline(Number.isFinite(budgetMs) ? budgetMs : 30_000, options.signal);
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const accept = onChunk === null ? 'application/json' : 'text/event-stream, application/json';
  try {
    const res = await send(ctx, url, 'POST', payload, accept, deadline, options.traceparent);
    if (isSuccess(res.statusCode) && isEventStream(res.headers['content-type'])) {
      return await readEventStream(res, maxBytes, onChunk, deadline, startedMs);
    }
    const read = await readJson(res, maxBytes, startedMs);
    if (!read.ok) return read;
    return interpretExecuteBody(read.status, read.body, false, startedMs);
  } catch (err) {
    return classifyError(err, deadline, startedMs);
  } finally {
    deadline.cancel();
  }
}

/** Success body → ok; failure body (any status) → agent_error with its cost; else the mismatch. */
function interpretExecuteBody(status: number, body: unknown, streamed: boolean, startedMs: number): ExecuteOutcome {
  if (isSuccess(status) && validateExecuteSuccess(body)) {
    const durationMs = performance.now() - startedMs;
    return { ok: true, status, result: body.result, metadata: successMetadata(body.metadata, durationMs), streamed, durationMs };
  }
  if (validateExecuteFailure(body)) {
    const message = body.error.length > MAX_ERROR_MESSAGE ? `${body.error.slice(0, MAX_ERROR_MESSAGE)}…` : body.error;
    const cost = body.metadata?.cost;
    return failure('agent_error', message || 'Agent reported a failure', startedMs, { status, ...(cost === undefined ? {} : { cost }) });
  }
  if (!isSuccess(status)) return failure('http_status', `Agent answered HTTP ${status}`, startedMs, { status });
  return failure('invalid_shape', `Execute response ${describeErrors(validateExecuteSuccess)}`, startedMs, { status });
}

/**
 * The metadata kept from a success body: only the protocol's fields (extras an agent sends are
 * not stored), a missing cost marked null and a missing duration replaced by our own measure.
 */
function successMetadata(reported: ExecuteMetadata | undefined, measuredMs: number): SuccessMetadata {
  return {
    cost: reported?.cost ?? null,
    duration: reported?.duration ?? Math.round(measuredMs),
    ...(reported?.model === undefined ? {} : { model: reported.model }),
    ...(reported?.tokensUsed === undefined
      ? {}
      : { tokensUsed: { input: reported.tokensUsed.input, output: reported.tokensUsed.output } }),
  };
}

// ---------------------------------------------------------------------------------------------

function send(
  ctx: CallContext,
  url: string,
  method: 'GET' | 'POST',
  payload: string | null,
  accept: string,
  deadline: CallDeadline,
  traceparent?: string,
): Promise<Dispatcher.ResponseData> {
  const headers: Record<string, string> = { accept, 'user-agent': ctx.userAgent };
  if (payload !== null) headers['content-type'] = 'application/json';
  if (traceparent !== undefined) headers.traceparent = traceparent;
  return request(url, {
    dispatcher: ctx.dispatcher,
    method,
    headers,
    body: payload,
    signal: deadline.signal,
  });
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

function isEventStream(contentType: string | string[] | undefined): boolean {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  return value !== undefined && value.trimStart().toLowerCase().startsWith('text/event-stream');
}

type JsonRead = { readonly ok: true; readonly status: number; readonly body: unknown } | AgentCallFailure;

/**
 * Reads the whole body against the cap and parses it. Non-2xx answers whose body is not JSON
 * come back with `body: undefined` so the status, not the parse, is what gets reported.
 */
async function readJson(res: Dispatcher.ResponseData, maxBytes: number, startedMs: number): Promise<JsonRead> {
  const status = res.statusCode;
  const bytes = await readCapped(res, maxBytes);
  if (bytes === null) {
    if (!isSuccess(status)) return failure('http_status', `Agent answered HTTP ${status} (body over ${maxBytes} bytes)`, startedMs, { status });
    return failure('too_large', `Response body exceeds ${maxBytes} bytes`, startedMs, { status });
  }
  try {
    return { ok: true, status, body: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch {
    if (!isSuccess(status)) return { ok: true, status, body: undefined };
    return failure('invalid_json', 'Response body is not valid JSON', startedMs, { status });
  }
}

/** The body, or null once it passes `maxBytes` (reading stops and the socket is dropped). */
async function readCapped(res: Dispatcher.ResponseData, maxBytes: number): Promise<Buffer | null> {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.body.destroy();
    return null;
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      res.body.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/** State of one streamed answer while its events are decoded. */
class StreamState {
  final: ExecuteOutcome | null = null;

  constructor(
    readonly status: number,
    readonly onChunk: ChunkListener | null,
    readonly startedMs: number,
  ) {}

  /** Handles one event's data; false stops reading (final event, or a violation). */
  onData(data: string): boolean {
    let event: unknown;
    try {
      event = JSON.parse(data) as unknown;
    } catch {
      this.final = failure('invalid_json', 'Stream event data is not valid JSON', this.startedMs, { status: this.status });
      return false;
    }
    if (validateStreamChunk(event)) {
      if (this.onChunk !== null) this.onChunk(event.chunk);
      return true;
    }
    this.final = interpretExecuteBody(this.status, event, true, this.startedMs);
    return false;
  }
}

async function readEventStream(
  res: Dispatcher.ResponseData,
  maxBytes: number,
  onChunk: ChunkListener | null,
  deadline: CallDeadline,
  startedMs: number,
): Promise<ExecuteOutcome> {
  const state = new StreamState(res.statusCode, onChunk, startedMs);
  const decoder = new TextDecoder('utf-8');
  const sse = new SseDecoder();
  const onData = (data: string): boolean => state.onData(data);
  let total = 0;
  try {
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > maxBytes) {
        return failure('too_large', `Event stream exceeds ${maxBytes} bytes`, startedMs, { status: state.status });
      }
      if (!sse.push(decoder.decode(chunk, { stream: true }), onData)) break;
    }
    if (state.final === null) sse.finish(onData);
  } catch (err) {
    if (deadline.cause === null && !isNetworkError(err)) {
      // Only a throwing onChunk gets here: the caller's own listener failed.
      return failure('aborted', `Chunk listener threw: ${errorMessage(err)}`, startedMs, { status: state.status });
    }
    throw err;
  } finally {
    // Leaving early (final event, cap, listener error) must drop the rest of the stream.
    if (!res.body.readableEnded) res.body.destroy();
  }
  return state.final
    ?? failure('invalid_shape', 'Event stream ended without a final result event', startedMs, { status: state.status });
}

// ---------------------------------------------------------------------------------------------

const REFUSED_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN',
]);
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT',
]);
const RESET_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'HPE_INVALID_CONSTANT', 'HPE_INVALID_VERSION', 'HPE_INVALID_STATUS', 'HPE_INVALID_HEADER_TOKEN',
]);

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  // Happy-eyeballs connects fail with an AggregateError of per-address errors.
  if (err instanceof AggregateError) return errorCode(err.errors[0]);
  return undefined;
}

function isNetworkError(err: unknown): boolean {
  const code = errorCode(err);
  return code !== undefined && (REFUSED_CODES.has(code) || TIMEOUT_CODES.has(code) || RESET_CODES.has(code)
    || code.startsWith('UND_ERR') || code.startsWith('HPE_') || code === 'ERR_URL_NOT_ALLOWED');
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Maps anything undici, net, DNS or the policy threw to a failure kind. */
function classifyError(err: unknown, deadline: CallDeadline, startedMs: number): AgentCallFailure {
  // The deadline is checked first: an abort surfaces as whatever error undici was in the middle of.
  if (deadline.cause === 'timeout') {
    return failure('timeout', `Agent did not answer within ${deadline.timeoutMs} ms`, startedMs);
  }
  if (deadline.cause === 'aborted') return failure('aborted', 'Call aborted by the caller', startedMs);
  if (isUrlNotAllowedError(err)) return failure('url_not_allowed', err.message, startedMs, { reason: err.reason });
  const code = errorCode(err) ?? '';
  const detail = errorMessage(err);
  if (REFUSED_CODES.has(code)) return failure('refused', `Could not connect to the agent (${code}): ${detail}`, startedMs);
  if (TIMEOUT_CODES.has(code)) return failure('timeout', `Agent call timed out (${code})`, startedMs);
  if (RESET_CODES.has(code) || code.startsWith('HPE_')) {
    return failure('reset', `Connection to the agent broke (${code}): ${detail}`, startedMs);
  }
  return failure('reset', `Agent call failed${code === '' ? '' : ` (${code})`}: ${detail}`, startedMs);
}
