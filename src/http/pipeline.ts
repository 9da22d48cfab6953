/**
 * The request path for one route: capture what is needed from the uWS request synchronously,
 * register onAborted, read and validate the body, authenticate, run the handler, write the
 * reply (corked), then record usage off the request path. Nothing thrown here reaches uWS.
 */
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { resolveClientAddress, type IpAllowlist } from '../domain/ip-allowlist.js';
import type { Authenticator } from '../services/auth/authenticator.js';
import type { Principal } from '../services/auth/principal.js';
import {
  ApiError,
  internalError,
  invalidRequest,
  serviceUnavailable,
  unsupportedMediaType,
} from '../domain/errors.js';
import type { Logger } from '../support/log.js';
import type { UsageEntry } from '../domain/usage.js';
import { nextRequestId } from './request-id.js';
import { contentLengthConflict } from './framing.js';
import { isJsonContentType, leavesConnectionReusable, parseJsonBody, readBody, type BodyLimits } from './body.js';
import { writeResponse, type ResponseState } from './respond.js';
import type { Reply, RequestContext, Route } from './route.js';
import { UwsSseSink } from './sse-sink.js';
import { type SseSink } from '../ports/event-sink.js';
import { assertStorableBody, assertStorableParam, assertStorableQuery } from './storable-text.js';
import { isStoreUnavailable } from './unavailable.js';
import { endRequestSpan, inSpan, startRequestSpan, type Span } from '../support/telemetry/index.js';

export interface UsageSink {
  record(entry: UsageEntry): void;
}

/** Headers computed per authenticated request (rate-limit state) and the check behind them. */
export interface RequestGate {
  /** Throws (e.g. 429) or returns headers to add to the response. */
  admit(principal: Principal): Promise<Readonly<Record<string, string>> | null>;
}

export interface PipelineDeps {
  readonly authenticator: Authenticator;
  readonly usage: UsageSink;
  readonly logger: Logger;
  readonly body: BodyLimits;
  readonly trustedProxies: IpAllowlist | null;
  readonly gate: RequestGate | null;
  readonly sseMaxBufferedBytes: number;
  /** Open event streams, so shutdown can end each with a final comment. */
  readonly openStreams?: Set<SseSink>;
  /** Called once per finished request, for metrics. */
  readonly observe?: (route: string, method: string, status: number, durationMs: number) => void;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
const JSON_TYPE = 'application/json; charset=utf-8';
const BASE_HEADERS = ['authorization', 'x-api-key', 'content-type', 'x-request-id', 'x-forwarded-for'];

interface Exchange extends ResponseState {
  readonly res: HttpResponse;
  readonly requestId: string;
  readonly started: number;
  /** Created on first use: most handlers never ask for the request's signal. */
  abort: AbortController | null;
  sink: UwsSseSink | null;
  extraHeaders: Readonly<Record<string, string>> | null;
  /** The request's trace span; null while tracing is off. */
  readonly span: Span | null;
}

/** Returns the uWS handler for one route. */
export function routeHandler(route: Route, deps: PipelineDeps): (res: HttpResponse, req: HttpRequest) => void {
  const paramNames = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  const headerNames = [...BASE_HEADERS, ...(route.headers ?? [])];
  const hasBody = route.body !== undefined;
  const methodName = route.method === 'del' ? 'DELETE' : route.method.toUpperCase();

  return function handle(res: HttpResponse, req: HttpRequest): void {
    const headers: Record<string, string> = {};
    for (const name of headerNames) headers[name] = req.getHeader(name);
    const rawParams: string[] = paramNames.map((_, i) => req.getParameter(i) ?? '');
    const path = req.getUrl();
    const query = req.getQuery() ?? '';
    const incomingId = headers['x-request-id']!;
    const exchange: Exchange = {
      res,
      requestId: REQUEST_ID.test(incomingId) ? incomingId : nextRequestId(),
      started: performance.now(),
      abort: null,
      aborted: false,
      responded: false,
      sink: null,
      extraHeaders: null,
      span: startRequestSpan(methodName, route.path, path, req),
    };
    res.onAborted(() => {
      exchange.aborted = true;
      exchange.abort?.abort();
      exchange.sink?.aborted();
    });
    const peer = Buffer.from(res.getRemoteAddressAsText()).toString();
    const clientAddress = resolveClientAddress(peer, headers['x-forwarded-for']!, deps.trustedProxies);

    const conflict = contentLengthConflict(req);
    if (conflict === 'first-smaller') {
      // A 400 would still let uWS run the request hidden in the body's tail: drop the connection.
      exchange.aborted = true;
      res.close();
      return;
    }
    if (conflict === 'first-largest') {
      // The body's end is unknown, so nothing after it on this connection can be trusted: close.
      const error = invalidRequest('Content-Length', 'Request has conflicting Content-Length values (RFC 9112 §6.3)');
      finish(exchange, deps, { route, method: methodName, path, clientAddress }, null, errorReply(error), true);
      return;
    }
    let body: Promise<Buffer> | null = null;
    if (hasBody) {
      const type = headers['content-type']!;
      if (type !== '' && !isJsonContentType(type)) {
        // Refuse before reading; closing drops whatever body is still in flight.
        finish(exchange, deps, { route, method: methodName, path, clientAddress }, null, errorReply(unsupportedMediaType(type)), true);
        return;
      }
      body = readBody(res, deps.body);
      // A rejected read is handled below; this keeps it from being reported as unhandled meanwhile.
      body.catch(() => undefined);
    }
    void run(exchange, deps, route, methodName, path, query, headers, paramNames, rawParams, clientAddress, body);
  };
}

async function run(
  exchange: Exchange,
  deps: PipelineDeps,
  route: Route,
  method: string,
  path: string,
  query: string,
  headers: Record<string, string>,
  paramNames: readonly string[],
  rawParams: readonly string[],
  clientAddress: string,
  bodyBytes: Promise<Buffer> | null,
): Promise<void> {
  let principal: Principal | null = null;
  let closeAfter = false;
  try {
    let bytes: Buffer | null = null;
    if (bodyBytes !== null) {
      try {
        bytes = await bodyBytes;
      } catch (error) {
        // A slow body (408), or an oversized one that never ended, leaves unread bytes on the
        // socket: close it after answering. An oversized body read to its end leaves it clean.
        closeAfter = !leavesConnectionReusable(error);
        throw error;
      }
    }
    // Authenticate before looking inside the body, so anonymous callers learn nothing from it.
    principal = await deps.authenticator.authenticate(
      route.access,
      { authorization: headers['authorization']!, apiKey: headers['x-api-key']! },
      clientAddress,
    );
    // Every request of a known key counts, a refused permission included (DESIGN §10).
    if (deps.gate !== null && principal.kind === 'key') exchange.extraHeaders = await deps.gate.admit(principal);
    deps.authenticator.checkPermission(route.access, principal);
    // Every id, query value and body string is checked here, once, for text no store can keep
    // (NUL, lone surrogates): 400 naming the field rather than a 500 from Postgres.
    const params: Record<string, string> = {};
    for (let i = 0; i < paramNames.length; i++) {
      const name = paramNames[i]!;
      params[name] = decodeParam(name, rawParams[i]!);
      assertStorableParam(name, params[name]);
    }
    const searchParams = new URLSearchParams(query);
    for (const [name, value] of searchParams) assertStorableQuery(name, value);
    let body: unknown = bytes === null ? undefined : parseJsonBody(bytes);
    assertStorableBody(body);
    if (route.body !== undefined) body = route.body.parse(body);
    const ctx: RequestContext = {
      requestId: exchange.requestId,
      method,
      path,
      params,
      query: searchParams,
      headers,
      clientAddress,
      principal,
      body,
      get signal() {
        exchange.abort ??= new AbortController();
        if (exchange.aborted) exchange.abort.abort();
        return exchange.abort.signal;
      },
    };
    const reply = await (exchange.span === null ? route.handle(ctx) : inSpan(exchange.span, route.handle, route, ctx));
    finish(exchange, deps, { route, method, path, clientAddress }, principal, reply, false);
  } catch (error) {
    const apiError = toApiError(error, deps.logger, exchange.requestId);
    finish(exchange, deps, { route, method, path, clientAddress }, principal, errorReply(apiError), closeAfter);
  }
}

function decodeParam(name: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw invalidRequest(name, `Path parameter '${name}' is not valid percent-encoding`);
  }
}

function toApiError(error: unknown, logger: Logger, requestId: string): ApiError {
  if (error instanceof ApiError) return error;
  if (isStoreUnavailable(error)) {
    logger.warn({ err: error, requestId }, 'backing store unavailable');
    return serviceUnavailable('A backing store', 2);
  }
  logger.error({ err: error, requestId }, 'unhandled error');
  return internalError();
}

function errorReply(error: ApiError): Reply {
  return {
    kind: 'json',
    status: error.status,
    body: { error: error.code, message: error.message, ...error.extra },
    headers: error.headers,
  };
}

interface RequestInfo {
  readonly route: Route;
  readonly method: string;
  readonly path: string;
  readonly clientAddress: string;
}

function finish(
  exchange: Exchange,
  deps: PipelineDeps,
  request: RequestInfo,
  principal: Principal | null,
  reply: Reply,
  closeConnection: boolean,
): void {
  const headers: Record<string, string> = { 'X-Request-Id': exchange.requestId };
  if (exchange.extraHeaders !== null) Object.assign(headers, exchange.extraHeaders);
  if (reply.headers !== undefined) Object.assign(headers, reply.headers);
  let status: number;
  if (reply.kind === 'stream') {
    status = 200;
    startStream(exchange, deps, headers, reply);
  } else if (reply.kind === 'json') {
    status = reply.status;
    headers['Content-Type'] = JSON_TYPE;
    headers['Cache-Control'] = 'no-store';
    const body = reply.status >= 400 && typeof reply.body === 'object' && reply.body !== null
      ? { ...(reply.body as Record<string, unknown>), requestId: exchange.requestId }
      : reply.body;
    writeResponse(exchange.res, exchange, status, headers, JSON.stringify(body), closeConnection);
  } else if (reply.kind === 'raw') {
    status = reply.status;
    headers['Content-Type'] = reply.contentType;
    writeResponse(exchange.res, exchange, status, headers, reply.body, closeConnection);
  } else {
    status = reply.status;
    writeResponse(exchange.res, exchange, status, headers, undefined, closeConnection);
  }
  const durationMs = performance.now() - exchange.started;
  deps.observe?.(request.route.path, request.method, status, durationMs);
  endRequestSpan(exchange.span, status, reply.kind === 'json' ? reply.body : null, exchange.requestId, request.clientAddress);
  if (principal !== null && principal.kind === 'key') {
    deps.usage.record({
      keyId: principal.key.id,
      at: new Date(),
      endpoint: request.path,
      method: request.method,
      statusCode: status,
      ipAddress: request.clientAddress,
    });
  }
}

function startStream(exchange: Exchange, deps: PipelineDeps, headers: Record<string, string>, reply: Extract<Reply, { kind: 'stream' }>): void {
  if (exchange.aborted || exchange.responded) return;
  exchange.responded = true;
  const res = exchange.res;
  res.cork(() => {
    res.writeStatus('200 OK');
    for (const name in headers) res.writeHeader(name, headers[name]!);
    res.writeHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.writeHeader('Cache-Control', 'no-cache, no-transform');
    // Proxies such as nginx otherwise buffer the stream.
    res.writeHeader('X-Accel-Buffering', 'no');
  });
  const sink = new UwsSseSink(res, deps.sseMaxBufferedBytes);
  exchange.sink = sink;
  if (deps.openStreams !== undefined) {
    const streams = deps.openStreams;
    streams.add(sink);
    sink.onClose(() => streams.delete(sink));
  }
  reply.start(sink);
}
