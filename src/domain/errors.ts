/**
 * The error catalogue: every error a client can see is declared here once, with its HTTP status,
 * a message and the extra fields it carries. Routes throw `ApiError`s built by these factories;
 * the HTTP layer turns them into `{ error, message, requestId, ...extra }`.
 * The README's error table mirrors this file.
 */

export const ErrorCode = {
  INVALID_REQUEST: 'INVALID_REQUEST',
  UNAUTHORIZED: 'UNAUTHORIZED',
  KEY_EXPIRED: 'KEY_EXPIRED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  ACCOUNT_NOT_FOUND: 'ACCOUNT_NOT_FOUND',
  KEY_NOT_FOUND: 'KEY_NOT_FOUND',
  AGENT_NOT_FOUND: 'AGENT_NOT_FOUND',
  AGENT_ALREADY_EXISTS: 'AGENT_ALREADY_EXISTS',
  AGENT_UNREACHABLE: 'AGENT_UNREACHABLE',
  URL_NOT_ALLOWED: 'URL_NOT_ALLOWED',
  NO_AGENTS_AVAILABLE: 'NO_AGENTS_AVAILABLE',
  BUDGET_EXCEEDED: 'BUDGET_EXCEEDED',
  EXECUTION_NOT_FOUND: 'EXECUTION_NOT_FOUND',
  EXECUTION_NOT_CANCELLABLE: 'EXECUTION_NOT_CANCELLABLE',
  IDEMPOTENCY_IN_PROGRESS: 'IDEMPOTENCY_IN_PROGRESS',
  IDEMPOTENCY_KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED',
  WORKFLOW_NOT_FOUND: 'WORKFLOW_NOT_FOUND',
  WORKFLOW_ALREADY_EXISTS: 'WORKFLOW_ALREADY_EXISTS',
  APPROVAL_NOT_FOUND: 'APPROVAL_NOT_FOUND',
  APPROVAL_ALREADY_DECIDED: 'APPROVAL_ALREADY_DECIDED',
  RATE_LIMIT_EXCEEDED: 'RATE_LIMIT_EXCEEDED',
  QUEUE_FULL: 'QUEUE_FULL',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  OVERLOADED: 'OVERLOADED',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The HTTP status each code is sent with (the OpenAPI document lists codes under it). */
export const ErrorStatus: Readonly<Record<ErrorCode, number>> = {
  INVALID_REQUEST: 400,
  URL_NOT_ALLOWED: 400,
  UNAUTHORIZED: 401,
  KEY_EXPIRED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  ACCOUNT_NOT_FOUND: 404,
  KEY_NOT_FOUND: 404,
  AGENT_NOT_FOUND: 404,
  NO_AGENTS_AVAILABLE: 404,
  EXECUTION_NOT_FOUND: 404,
  WORKFLOW_NOT_FOUND: 404,
  APPROVAL_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  AGENT_ALREADY_EXISTS: 409,
  EXECUTION_NOT_CANCELLABLE: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  WORKFLOW_ALREADY_EXISTS: 409,
  APPROVAL_ALREADY_DECIDED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  AGENT_UNREACHABLE: 422,
  BUDGET_EXCEEDED: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMIT_EXCEEDED: 429,
  QUEUE_FULL: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  OVERLOADED: 503,
};

export type ErrorExtra = Readonly<Record<string, unknown>>;

/** An error meant for the client. `headers` are added to the response (e.g. Retry-After). */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly extra: ErrorExtra;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    extra: ErrorExtra = {},
    headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.extra = extra;
    this.headers = headers;
  }
}

export const invalidRequest = (field: string, message: string): ApiError =>
  new ApiError(400, ErrorCode.INVALID_REQUEST, message, { field });

export const unauthorized = (details: string): ApiError =>
  new ApiError(401, ErrorCode.UNAUTHORIZED, 'Authentication required', { details });

export const keyExpired = (expiredAt: string): ApiError =>
  new ApiError(401, ErrorCode.KEY_EXPIRED, 'API key has expired', {
    expiredAt,
    details: `The key expired at ${expiredAt}; create a new key`,
  });

export const forbidden = (requiredPermission: string, details?: string): ApiError =>
  new ApiError(403, ErrorCode.FORBIDDEN, 'Insufficient permissions', {
    requiredPermission,
    details: details ?? `This key lacks the '${requiredPermission}' permission`,
  });

export const ipNotAllowed = (ip: string): ApiError =>
  new ApiError(403, ErrorCode.FORBIDDEN, 'Request address not allowed for this key', {
    requiredPermission: 'ip-allowlist',
    details: `Address ${ip} is not in this key's ipWhitelist`,
  });

export const routeNotFound = (method: string, path: string): ApiError =>
  new ApiError(404, ErrorCode.NOT_FOUND, `No route for ${method} ${path}`);

export const methodNotAllowed = (method: string, allowed: readonly string[]): ApiError =>
  new ApiError(
    405,
    ErrorCode.METHOD_NOT_ALLOWED,
    `Method ${method} is not allowed here`,
    { allowed },
    { Allow: allowed.join(', ') },
  );

export const payloadTooLarge = (limitBytes: number): ApiError =>
  new ApiError(413, ErrorCode.PAYLOAD_TOO_LARGE, `Request body exceeds ${limitBytes} bytes`, {
    limitBytes,
  });

export const unsupportedMediaType = (got: string): ApiError =>
  new ApiError(
    415,
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    `Content-Type must be application/json (got '${got || 'none'}')`,
  );

export const requestTimeout = (): ApiError =>
  new ApiError(408, ErrorCode.REQUEST_TIMEOUT, 'Request body was not received in time');

export const accountNotFound = (id: string): ApiError =>
  new ApiError(404, ErrorCode.ACCOUNT_NOT_FOUND, `Account '${id}' not found`, { field: 'accountId' });

export const keyNotFound = (id: string): ApiError =>
  new ApiError(404, ErrorCode.KEY_NOT_FOUND, `API key '${id}' not found`);

export const serviceUnavailable = (what: string, retryAfterSeconds = 1): ApiError =>
  new ApiError(
    503,
    ErrorCode.SERVICE_UNAVAILABLE,
    `${what} is temporarily unavailable; retry shortly`,
    { retryAfter: retryAfterSeconds },
    { 'Retry-After': String(retryAfterSeconds) },
  );

/**
 * 503 when this worker cannot keep up (src/services/limits/admission.ts): a new execution or workflow run
 * is refused before anything is recorded, so what was accepted still completes. `reason` is
 * `backlog`, `event_loop_delay` or `agent_queue_wait`. Reads, cancels and approvals are served.
 */
export const overloaded = (reason: 'backlog' | 'event_loop_delay' | 'agent_queue_wait', details: string, retryAfterSeconds: number): ApiError =>
  new ApiError(
    503,
    ErrorCode.OVERLOADED,
    `The service is overloaded and accepts no new work right now; retry in ${retryAfterSeconds} s`,
    { retryAfter: retryAfterSeconds, reason, details },
    { 'Retry-After': String(retryAfterSeconds) },
  );

export const internalError = (): ApiError =>
  new ApiError(500, ErrorCode.INTERNAL_ERROR, 'Internal error; the request id identifies it in our logs');

export const agentNotFound = (id: string): ApiError =>
  new ApiError(404, ErrorCode.AGENT_NOT_FOUND, `Agent '${id}' not found`);

/** `holder`: which scope already uses the id (same scope, a global agent, or an account's agent). */
export const agentAlreadyExists = (id: string, holder: 'same_scope' | 'global' | 'account'): ApiError =>
  new ApiError(409, ErrorCode.AGENT_ALREADY_EXISTS, `Agent '${id}' already exists`, {
    field: 'id',
    details:
      holder === 'global'
        ? 'A global agent uses this id; choose another id'
        : holder === 'account'
          ? 'An account already has a private agent with this id; choose another id'
          : 'An agent with this id is already registered; PATCH it or choose another id',
  });

/** Registration probes failed: `probe` names which endpoint (`health` or `info`) and `reason` why. */
export const agentUnreachable = (probe: 'health' | 'info', reason: string, details: string): ApiError =>
  new ApiError(422, ErrorCode.AGENT_UNREACHABLE, `Agent did not pass its /${probe} check: ${details}`, {
    field: 'url',
    probe,
    reason,
    details,
  });

/** 422 AGENT_UNREACHABLE for an A2A registration whose agent card could not be fetched or used. */
export const agentCardUnusable = (reason: string, details: string): ApiError =>
  new ApiError(422, ErrorCode.AGENT_UNREACHABLE, `Agent card did not pass its check: ${details}`, {
    field: 'a2aCardUrl',
    probe: 'card',
    reason,
    details,
  });

/** 400 URL_NOT_ALLOWED naming `field` (an A2A card URL, or the endpoint its card names). */
export const fieldUrlNotAllowed = (field: string, reason: string, details: string): ApiError =>
  new ApiError(400, ErrorCode.URL_NOT_ALLOWED, `URL is not allowed: ${details}`, { field, reason, details });

export const urlNotAllowed = (reason: string, details: string): ApiError =>
  new ApiError(400, ErrorCode.URL_NOT_ALLOWED, `Agent URL is not allowed: ${details}`, { field: 'url', reason, details });

/**
 * 429 for a refused rate-limit check (spec §7). `limit`/`remaining`/`resetAt` describe the window
 * that refused (`window`: minute or day); `headers` carries Retry-After and the X-RateLimit-*
 * headers every authenticated response has.
 */
export const rateLimitExceeded = (
  window: 'minute' | 'day',
  limit: number,
  remaining: number,
  resetAt: Date,
  retryAfterSeconds: number,
  headers: Readonly<Record<string, string>>,
): ApiError =>
  new ApiError(
    429,
    ErrorCode.RATE_LIMIT_EXCEEDED,
    `Rate limit of ${limit} requests per ${window} exceeded; retry in ${retryAfterSeconds} s`,
    { retryAfter: retryAfterSeconds, limit, remaining, resetAt: resetAt.toISOString(), window },
    { ...headers, 'Retry-After': String(retryAfterSeconds) },
  );

/**
 * 429 when an account's executions fill every slot and its whole queue (DESIGN §10): nothing was
 * recorded. `retryAfter` estimates when a place frees; `limit` and `queueSize` are the account's.
 */
export const queueFull = (concurrent: number, queueSize: number, retryAfterSeconds: number): ApiError =>
  new ApiError(
    429,
    ErrorCode.QUEUE_FULL,
    `The account already runs ${concurrent} executions and has ${queueSize} queued; retry in ${retryAfterSeconds} s`,
    { retryAfter: retryAfterSeconds, limit: concurrent, queueSize },
    { 'Retry-After': String(retryAfterSeconds) },
  );

/**
 * The selection's estimated cost (fee included) is over the request's `maxCost` (422: the request
 * is well-formed, but nothing can run within its budget). Amounts in USD.
 */
export const budgetExceeded = (estimatedCost: number, maxCost: number): ApiError =>
  new ApiError(422, ErrorCode.BUDGET_EXCEEDED, `Estimated cost ${estimatedCost} USD exceeds maxCost ${maxCost} USD`, {
    field: 'maxCost',
    estimatedCost,
    maxCost,
    suggestion: 'Raise maxCost, lower selectionCriteria.maxAgents, or narrow the selection to cheaper agents',
  });

/** Selection found nothing; `suggestion` says which criterion to relax. */
export const noAgentsAvailable = (criteria: Readonly<Record<string, unknown>>, suggestion: string): ApiError =>
  new ApiError(404, ErrorCode.NO_AGENTS_AVAILABLE, 'No agent matches the selection criteria', { criteria, suggestion });

/** Unknown id, or another account's execution: the same answer, so nothing leaks. */
export const executionNotFound = (id: string): ApiError =>
  new ApiError(404, ErrorCode.EXECUTION_NOT_FOUND, `Execution '${id}' not found`);

export const executionNotCancellable = (id: string, status: string): ApiError =>
  new ApiError(409, ErrorCode.EXECUTION_NOT_CANCELLABLE, `Execution '${id}' is ${status} and can no longer be cancelled`, { status });

export const idempotencyInProgress = (key: string): ApiError =>
  new ApiError(
    409,
    ErrorCode.IDEMPOTENCY_IN_PROGRESS,
    `A request with X-Idempotency-Key '${key}' is still being processed; retry shortly`,
    { retryAfter: 1 },
    { 'Retry-After': '1' },
  );

export const idempotencyKeyReused = (key: string): ApiError =>
  new ApiError(
    422,
    ErrorCode.IDEMPOTENCY_KEY_REUSED,
    `X-Idempotency-Key '${key}' was already used with a different request body; use a new key for a new request`,
  );

/** Unknown slug, or a workflow the account cannot see: the same answer. */
export const workflowNotFound = (slug: string): ApiError =>
  new ApiError(404, ErrorCode.WORKFLOW_NOT_FOUND, `Workflow '${slug}' not found`);

export const workflowAlreadyExists = (slug: string): ApiError =>
  new ApiError(409, ErrorCode.WORKFLOW_ALREADY_EXISTS, `Workflow '${slug}' already exists`, {
    field: 'slug',
    details: 'PUT /v1/workflows/{slug} replaces it; or choose another slug',
  });

/** Unknown approval id, one of another execution, or of another account's: the same answer. */
export const approvalNotFound = (id: string): ApiError =>
  new ApiError(404, ErrorCode.APPROVAL_NOT_FOUND, `Approval '${id}' not found`);

/** `status`: what the approval already is (approved, rejected, expired, cancelled). */
export const approvalAlreadyDecided = (id: string, status: string): ApiError =>
  new ApiError(409, ErrorCode.APPROVAL_ALREADY_DECIDED, `Approval '${id}' was already decided (${status})`, { status });
