/**
 * The request path for one route: capture what is needed from the uWS request synchronously,
 * register onAborted, read and validate the body, authenticate, run the handler, write the
 * reply (corked), then record usage off the request path. Nothing thrown here reaches uWS.
 */
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { resolveClientAddress, type IpAllowlist } from '../auth/ip-allowlist.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { Principal } from '../auth/principal.js';
import {
  ApiError,
  internalError,
  invalidRequest,
  serviceUnavailable,
  unsupportedMediaType,
} from '../errors.js';
import type { Logger } from '../log.js';
import type { UsageEntry } from '../stores/ports.js';
import { nextRequestId } from './request-id.js';
import { isJsonContentType, parseJsonBody, readBody, type BodyLimits } from './body.js';
import { writeResponse, type ResponseState } from './respond.js';
import type { Reply, RequestContext, Route } from './route.js';
import { UwsSseSink, type SseSink } from './sse-sink.js';
import { isStoreUnavailable } from './unavailable.js';

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
    };
    res.onAborted(() => {
      exchange.aborted = true;
      exchange.abort?.abort();
      exchange.sink?.aborted();
    });
    const peer = Buffer.from(res.getRemoteAddressAsText()).toString();
    const clientAddress = resolveClientAddress(peer, headers['x-forwarded-for']!, deps.trustedProxies);

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
        // Size and time failures leave unread bytes on the socket: close it after answering.
        closeAfter = true;
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
    let body: unknown = bytes === null ? undefined : parseJsonBody(bytes);
    if (route.body !== undefined) body = route.body.parse(body);
    const params: Record<string, string> = {};
    for (let i = 0; i < paramNames.length; i++) params[paramNames[i]!] = decodeParam(paramNames[i]!, rawParams[i]!);
    const ctx: RequestContext = {
      requestId: exchange.requestId,
      method,
      path,
      params,
      query: new URLSearchParams(query),
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
    const reply = await route.handle(ctx);
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
  } else if (reply.kind === 'bytes') {
    status = reply.status;
    headers['Content-Type'] = reply.contentType;
    writeResponse(exchange.res, exchange, status, headers, reply.body, closeConnection);
  } else {
    status = reply.status;
    writeResponse(exchange.res, exchange, status, headers, undefined, closeConnection);
  }
  const durationMs = performance.now() - exchange.started;
  deps.observe?.(request.route.path, request.method, status, durationMs);
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
