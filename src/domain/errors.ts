/**
 * The error catalogue: every error code a client can observe is declared here once, in
 * `ErrorCatalogue`, with where it is seen, its HTTP status (for an HTTP error), whether trying
 * the same thing again may succeed (`retryable`, carried as data, never guessed from a status),
 * whether it is sent with Retry-After, its meaning and how to fix it.
 *
 * - HTTP errors (`ErrorCode`): routes throw `ApiError`s built by the factories below; the HTTP
 *   layer turns them into `{ error, message, requestId, ...extra }` (MCP tool results and A2A
 *   error `data` carry the same body).
 * - Run errors (`RunErrorCode`): `{ code, message }` of a FAILED execution's `error` (and its
 *   `execution.failed` webhook), of a failed agent under `result.details`, and of a workflow
 *   run's `error` event.
 *
 * docs/errors.md is generated from this table (`npm run docs:errors`; a test fails when stale).
 */

/** Where a client sees a code. */
export const ErrorSurface = {
  /** An HTTP error body (also an MCP tool's error result and an A2A error's `data`). */
  HTTP: 'http',
  /** `error.code` of a FAILED execution, and of its `execution.failed` webhook. */
  EXECUTION: 'execution',
  /** `error.code` of one agent's part of an execution, under its id in `result.details`. */
  AGENT: 'agent',
  /** `code` of a workflow run's `error` event, and of the run's `error`. */
  WORKFLOW: 'workflow',
} as const;
export type ErrorSurface = (typeof ErrorSurface)[keyof typeof ErrorSurface];

export interface ErrorEntry {
  /** The HTTP status it is sent with; null for a code only seen in a run's `error`. */
  readonly status: number | null;
  /** Whether the same request (or run) may succeed when tried again unchanged. */
  readonly retryable: boolean;
  /** Sent with a Retry-After header and a `retryAfter` field. */
  readonly retryAfter: boolean;
  readonly seenIn: readonly ErrorSurface[];
  /** One line: what happened. */
  readonly meaning: string;
  /** One line: what the client can do about it. */
  readonly fix: string;
}

/** Codes of HTTP error bodies. */
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

/**
 * Codes of a run's `error` that are not HTTP codes (INTERNAL_ERROR and AGENT_NOT_FOUND, both HTTP
 * codes, can also end a run). `AGENT_*` call failures are named by `agentCallErrorCode`.
 */
export const RunErrorCode = {
  AGENT_FAILED: 'AGENT_FAILED',
  ALL_AGENTS_FAILED: 'ALL_AGENTS_FAILED',
  DEPENDENCY_FAILED: 'DEPENDENCY_FAILED',
  BUDGET_REACHED: 'BUDGET_REACHED',
  EXECUTION_TIMEOUT: 'EXECUTION_TIMEOUT',
  AGGREGATOR_FAILED: 'AGGREGATOR_FAILED',
  EXECUTION_INTERRUPTED: 'EXECUTION_INTERRUPTED',
  AGENT_INVALID_RESULT: 'AGENT_INVALID_RESULT',
  MAX_STEPS_EXCEEDED: 'MAX_STEPS_EXCEEDED',
  APPROVAL_EXPIRED: 'APPROVAL_EXPIRED',
  AGENT_ERROR: 'AGENT_ERROR',
  AGENT_REFUSED: 'AGENT_REFUSED',
  AGENT_RESET: 'AGENT_RESET',
  AGENT_TIMEOUT: 'AGENT_TIMEOUT',
  AGENT_ABORTED: 'AGENT_ABORTED',
  AGENT_HTTP_STATUS: 'AGENT_HTTP_STATUS',
  AGENT_INVALID_JSON: 'AGENT_INVALID_JSON',
  AGENT_INVALID_SHAPE: 'AGENT_INVALID_SHAPE',
  AGENT_TOO_LARGE: 'AGENT_TOO_LARGE',
  AGENT_URL_NOT_ALLOWED: 'AGENT_URL_NOT_ALLOWED',
  AGENT_CIRCUIT_OPEN: 'AGENT_CIRCUIT_OPEN',
  AGENT_CANCELLED: 'AGENT_CANCELLED',
  AGENT_STOPPED: 'AGENT_STOPPED',
} as const;
export type RunErrorCode = (typeof RunErrorCode)[keyof typeof RunErrorCode];

/** Every code a client can observe. */
export type CatalogueCode = ErrorCode | RunErrorCode;

const { HTTP, EXECUTION, AGENT, WORKFLOW } = ErrorSurface;

function http(status: number, retryable: boolean, meaning: string, fix: string, seenIn: readonly ErrorSurface[] = [HTTP]): ErrorEntry {
  return { status, retryable, retryAfter: false, seenIn, meaning, fix };
}
/** An HTTP error sent with Retry-After (and `retryAfter` in its body): always retryable. */
function later(status: number, meaning: string, fix: string): ErrorEntry {
  return { status, retryable: true, retryAfter: true, seenIn: [HTTP], meaning, fix };
}
function run(seenIn: readonly ErrorSurface[], retryable: boolean, meaning: string, fix: string): ErrorEntry {
  return { status: null, retryable, retryAfter: false, seenIn, meaning, fix };
}
const CALL = [AGENT, WORKFLOW] as const;

export const ErrorCatalogue: Readonly<Record<CatalogueCode, ErrorEntry>> = {
  INVALID_REQUEST: http(400, false, 'Malformed JSON or UTF-8, a field missing or out of bounds, a NUL or lone surrogate in a parameter or string, or two different Content-Length values; `field` names it', 'Correct the named field (`""`: the whole body) and send again'),
  URL_NOT_ALLOWED: http(400, false, 'An agent, tool or webhook URL outside the outbound policy (loopback, private range, not http(s)); `reason` says which rule', 'Use a public http(s) URL'),
  UNAUTHORIZED: http(401, false, 'The API key is missing, malformed, unknown, deactivated or deleted', 'Send a valid, active key in Authorization: Bearer or X-API-Key'),
  KEY_EXPIRED: http(401, false, 'The API key is past its `expiresAt`', 'Create a new key'),
  FORBIDDEN: http(403, false, 'The key lacks the permission, the request comes from outside its `ipWhitelist`, or a key was used on an operator-only route', 'Use a key with `requiredPermission`, from an allowed address'),
  NOT_FOUND: http(404, false, 'No route has this path', 'Check the path (GET /openapi.json lists them)'),
  ACCOUNT_NOT_FOUND: http(404, false, 'The operator named an unknown `accountId`', 'Check the id'),
  KEY_NOT_FOUND: http(404, false, 'No such key in your account', 'Check the id'),
  AGENT_NOT_FOUND: http(404, false, 'No such agent visible to you; a workflow run whose step agent was deleted or is not visible ends with it too', 'Check the id (GET /v1/agents)', [HTTP, WORKFLOW]),
  NO_AGENTS_AVAILABLE: http(404, false, 'No agent matches the selection criteria; `suggestion` says which one to relax', 'Relax the criteria as suggested; preview with /v1/agents/selection-preview'),
  EXECUTION_NOT_FOUND: http(404, false, 'No such execution or workflow run in your account', 'Check the id'),
  WORKFLOW_NOT_FOUND: http(404, false, 'No such workflow slug visible to you', 'Check the slug (GET /v1/workflows)'),
  APPROVAL_NOT_FOUND: http(404, false, 'No such approval on this run', 'Check the ids from the `approval_request` event'),
  METHOD_NOT_ALLOWED: http(405, false, 'The path exists with other methods; `allowed` and the Allow header list them', 'Use one of the allowed methods'),
  REQUEST_TIMEOUT: http(408, true, 'The body was not received within BATON_BODY_TIMEOUT_MS; the connection is closed', 'Send the body promptly'),
  AGENT_ALREADY_EXISTS: http(409, false, 'The agent id is taken in what your account sees', 'Choose another id, or PATCH yours'),
  EXECUTION_NOT_CANCELLABLE: http(409, false, 'Cancel of an execution or run that already ended; `status` says how', 'Nothing to do'),
  WORKFLOW_ALREADY_EXISTS: http(409, false, 'POST of a workflow slug you already have', 'PUT /v1/workflows/{slug} replaces it; or choose another slug'),
  APPROVAL_ALREADY_DECIDED: http(409, false, 'The approval is no longer pending; `status` says what it is (approved, rejected, expired, cancelled)', 'Nothing to do'),
  IDEMPOTENCY_IN_PROGRESS: later(409, 'A request with this X-Idempotency-Key is still being accepted', 'Retry after `retryAfter` seconds; the answer is the first request\'s'),
  PAYLOAD_TOO_LARGE: http(413, false, 'The body is over BATON_MAX_BODY_BYTES (`limitBytes`); the rest is read and dropped first so the client reads the answer', 'Send less'),
  UNSUPPORTED_MEDIA_TYPE: http(415, false, 'A body with a Content-Type other than JSON', 'Send application/json'),
  AGENT_UNREACHABLE: http(422, true, 'Registration: the agent\'s /health or /info check failed; `probe` and `reason` say which and why', 'Make the agent answer both checks, then register again'),
  BUDGET_EXCEEDED: http(422, false, 'The selection\'s estimated cost (fee included) is over `maxCost`', 'Raise maxCost, or select fewer or cheaper agents'),
  IDEMPOTENCY_KEY_REUSED: http(422, false, 'The X-Idempotency-Key was already used with another body', 'Use a new key for a new request'),
  RATE_LIMIT_EXCEEDED: later(429, 'Over the account\'s minute or day request limit (`window`)', 'Wait `retryAfter` seconds'),
  QUEUE_FULL: later(429, 'Every concurrency slot of the account is busy and its queue is full; nothing was recorded', 'Retry after `retryAfter` seconds'),
  INTERNAL_ERROR: http(500, true, 'A bug; no stack trace is sent. A run it ends is stopped rather than retried', 'Retry; if it persists, report the `requestId` (or the run id)', [HTTP, EXECUTION, WORKFLOW]),
  SERVICE_UNAVAILABLE: later(503, 'Postgres or Redis unreachable, or not answering within BATON_STORE_DEADLINE_MS', 'Retry after `retryAfter` seconds'),
  OVERLOADED: later(503, 'A new execution or run while the worker cannot keep up (`reason`: backlog, saturated, event-loop delay or agent queue wait); nothing was recorded', 'Retry after `retryAfter` seconds'),

  AGENT_FAILED: run([EXECUTION], true, 'SEQUENTIAL: a step failed, so the run stopped there; the step\'s own code is in `result.details`', 'See the failed step\'s code; run again once its cause is fixed'),
  ALL_AGENTS_FAILED: run([EXECUTION], true, 'PARALLEL or DAG: no agent succeeded (or none ran); each failure is in `result.details`', 'See each agent\'s code in `result.details`'),
  BUDGET_REACHED: run([EXECUTION], false, 'The request\'s `maxCost` was reached during the run; nothing more was started', 'Raise maxCost'),
  EXECUTION_TIMEOUT: run([EXECUTION], true, 'The execution did not finish before its overall deadline', 'Run again; raise the agents\' timeouts or use fewer sequential steps'),
  AGGREGATOR_FAILED: run([EXECUTION], true, 'The custom aggregator agent failed; the agents\' own results stay in `result.details`', 'Check the aggregator agent, then run again'),
  EXECUTION_INTERRUPTED: run([EXECUTION, WORKFLOW], true, 'The worker running it stopped in the middle of its agent calls (or the approval it waited for is gone); agents are not assumed idempotent, so it was not resumed', 'Run it again'),
  DEPENDENCY_FAILED: run([AGENT], true, 'DAG: this agent did not run because an agent it depends on failed', 'See the dependency\'s code'),
  AGENT_INVALID_RESULT: run([WORKFLOW], false, 'The agent\'s result had neither usable `toolCalls` nor an `answer` string', 'Fix the agent\'s answer (docs/workflows.md)'),
  MAX_STEPS_EXCEEDED: run([WORKFLOW], false, 'The workflow made `maxSteps` agent calls without a final answer', 'Raise maxSteps or change the workflow'),
  APPROVAL_EXPIRED: run([WORKFLOW], true, 'An approval expired without a decision under `onApprovalTimeout: "fail"`', 'Run again and decide the approval in time'),
  AGENT_ERROR: run(CALL, true, 'The agent answered its failure body (`{ result: null, error }`)', 'See the agent\'s message'),
  AGENT_REFUSED: run(CALL, true, 'No connection to the agent: refused, unresolvable name or unreachable network', 'Check that the agent is up at its URL'),
  AGENT_RESET: run(CALL, true, 'The connection to the agent broke before its whole answer arrived', 'Run again'),
  AGENT_TIMEOUT: run(CALL, true, 'The agent did not answer within its timeout (`metadata.timeout`)', 'Run again, or raise the agent\'s timeoutMs'),
  AGENT_ABORTED: run(CALL, true, 'The call was given up by Baton (the run ended or was stopped) before the agent answered', 'Run again'),
  AGENT_HTTP_STATUS: run(CALL, true, 'The agent answered a non-2xx status without a protocol failure body', 'Check the agent'),
  AGENT_INVALID_JSON: run(CALL, false, 'The agent answered 2xx with a body that is not JSON', 'Fix the agent (`baton agent check`)'),
  AGENT_INVALID_SHAPE: run(CALL, false, 'The agent answered JSON that is not the protocol\'s /execute payload', 'Fix the agent (`baton agent check`)'),
  AGENT_TOO_LARGE: run(CALL, false, 'The agent\'s answer went over the size cap; reading stopped there', 'Make the agent answer less'),
  AGENT_URL_NOT_ALLOWED: run(CALL, false, 'The outbound policy refused the agent\'s URL or the address it resolved to', 'Register the agent at a public URL'),
  AGENT_CIRCUIT_OPEN: run(CALL, true, 'The agent failed repeatedly and its circuit breaker is open; nothing was sent', 'Run again later'),
  AGENT_CANCELLED: run(CALL, false, 'The run was cancelled before the call was sent', 'Nothing to do'),
  AGENT_STOPPED: run([AGENT], false, 'The agent was deleted (or the worker was stopping) before the call was sent', 'Select another agent'),
};

/** The HTTP status each code is sent with (the OpenAPI document lists codes under it). */
export const ErrorStatus: Readonly<Record<ErrorCode, number>> = Object.fromEntries(
  Object.values(ErrorCode).map((code) => [code, ErrorCatalogue[code].status as number]),
) as Record<ErrorCode, number>;

/** Whether trying again unchanged may succeed, for any catalogue code; false for an unknown one. */
export function isRetryable(code: string): boolean {
  return Object.hasOwn(ErrorCatalogue, code) && ErrorCatalogue[code as CatalogueCode].retryable;
}

/**
 * The code of a failed agent call, by the call's failure kind (src/ports/agent-outcomes.ts) or
 * the agent actor's refusal kind (src/actors/agent-protocol.ts, which checks the table is whole).
 */
export const AgentCallErrorCode = {
  refused: RunErrorCode.AGENT_REFUSED,
  reset: RunErrorCode.AGENT_RESET,
  timeout: RunErrorCode.AGENT_TIMEOUT,
  aborted: RunErrorCode.AGENT_ABORTED,
  agent_error: RunErrorCode.AGENT_ERROR,
  http_status: RunErrorCode.AGENT_HTTP_STATUS,
  invalid_json: RunErrorCode.AGENT_INVALID_JSON,
  invalid_shape: RunErrorCode.AGENT_INVALID_SHAPE,
  too_large: RunErrorCode.AGENT_TOO_LARGE,
  url_not_allowed: RunErrorCode.AGENT_URL_NOT_ALLOWED,
  circuit_open: RunErrorCode.AGENT_CIRCUIT_OPEN,
  cancelled: RunErrorCode.AGENT_CANCELLED,
  stopped: RunErrorCode.AGENT_STOPPED,
} as const;
export type AgentCallFailureKind = keyof typeof AgentCallErrorCode;

/**
 * The code a failed agent call gives an execution's agent result, or a workflow run's `error`:
 * a workflow names an agent gone before the call AGENT_NOT_FOUND, an execution AGENT_STOPPED.
 */
export function agentCallErrorCode(kind: AgentCallFailureKind, where: 'execution' | 'workflow' = 'execution'): CatalogueCode {
  if (kind === 'stopped' && where === 'workflow') return ErrorCode.AGENT_NOT_FOUND;
  return AgentCallErrorCode[kind];
}

export type ErrorExtra = Readonly<Record<string, unknown>>;

/**
 * An error meant for the client, sent with its code's catalogue status. `headers` are added to
 * the response (e.g. Retry-After); `retryable` is the catalogue's.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly extra: ErrorExtra;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, extra: ErrorExtra = {}, headers: Readonly<Record<string, string>> = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ErrorStatus[code];
    this.retryable = ErrorCatalogue[code].retryable;
    this.extra = extra;
    this.headers = headers;
  }
}

export const invalidRequest = (field: string, message: string): ApiError =>
  new ApiError(ErrorCode.INVALID_REQUEST, message, { field });

export const unauthorized = (details: string): ApiError =>
  new ApiError(ErrorCode.UNAUTHORIZED, 'Authentication required', { details });

export const keyExpired = (expiredAt: string): ApiError =>
  new ApiError(ErrorCode.KEY_EXPIRED, 'API key has expired', {
    expiredAt,
    details: `The key expired at ${expiredAt}; create a new key`,
  });

export const forbidden = (requiredPermission: string, details?: string): ApiError =>
  new ApiError(ErrorCode.FORBIDDEN, 'Insufficient permissions', {
    requiredPermission,
    details: details ?? `This key lacks the '${requiredPermission}' permission`,
  });

export const ipNotAllowed = (ip: string): ApiError =>
  new ApiError(ErrorCode.FORBIDDEN, 'Request address not allowed for this key', {
    requiredPermission: 'ip-allowlist',
    details: `Address ${ip} is not in this key's ipWhitelist`,
  });

export const routeNotFound = (method: string, path: string): ApiError =>
  new ApiError(ErrorCode.NOT_FOUND, `No route for ${method} ${path}`);

export const methodNotAllowed = (method: string, allowed: readonly string[]): ApiError =>
  new ApiError(
    ErrorCode.METHOD_NOT_ALLOWED,
    `Method ${method} is not allowed here`,
    { allowed },
    { Allow: allowed.join(', ') },
  );

export const payloadTooLarge = (limitBytes: number): ApiError =>
  new ApiError(ErrorCode.PAYLOAD_TOO_LARGE, `Request body exceeds ${limitBytes} bytes`, {
    limitBytes,
  });

export const unsupportedMediaType = (got: string): ApiError =>
  new ApiError(
    ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    `Content-Type must be application/json (got '${got || 'none'}')`,
  );

export const requestTimeout = (): ApiError =>
  new ApiError(ErrorCode.REQUEST_TIMEOUT, 'Request body was not received in time');

export const accountNotFound = (id: string): ApiError =>
  new ApiError(ErrorCode.ACCOUNT_NOT_FOUND, `Account '${id}' not found`, { field: 'accountId' });

export const keyNotFound = (id: string): ApiError =>
  new ApiError(ErrorCode.KEY_NOT_FOUND, `API key '${id}' not found`);

export const serviceUnavailable = (what: string, retryAfterSeconds = 1): ApiError =>
  new ApiError(
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
export const overloaded = (reason: 'backlog' | 'saturated' | 'event_loop_delay' | 'agent_queue_wait', details: string, retryAfterSeconds: number): ApiError =>
  new ApiError(
    ErrorCode.OVERLOADED,
    `The service is overloaded and accepts no new work right now; retry in ${retryAfterSeconds} s`,
    { retryAfter: retryAfterSeconds, reason, details },
    { 'Retry-After': String(retryAfterSeconds) },
  );

export const internalError = (): ApiError =>
  new ApiError(ErrorCode.INTERNAL_ERROR, 'Internal error; the request id identifies it in our logs');

export const agentNotFound = (id: string): ApiError =>
  new ApiError(ErrorCode.AGENT_NOT_FOUND, `Agent '${id}' not found`);

/** `holder`: which scope already uses the id (same scope, a global agent, or an account's agent). */
export const agentAlreadyExists = (id: string, holder: 'same_scope' | 'global' | 'account'): ApiError =>
  new ApiError(ErrorCode.AGENT_ALREADY_EXISTS, `Agent '${id}' already exists`, {
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
  new ApiError(ErrorCode.AGENT_UNREACHABLE, `Agent did not pass its /${probe} check: ${details}`, {
    field: 'url',
    probe,
    reason,
    details,
  });

/** 422 AGENT_UNREACHABLE for an A2A registration whose agent card could not be fetched or used. */
export const agentCardUnusable = (reason: string, details: string): ApiError =>
  new ApiError(ErrorCode.AGENT_UNREACHABLE, `Agent card did not pass its check: ${details}`, {
    field: 'a2aCardUrl',
    probe: 'card',
    reason,
    details,
  });

/** 400 URL_NOT_ALLOWED naming `field` (an A2A card URL, or the endpoint its card names). */
export const fieldUrlNotAllowed = (field: string, reason: string, details: string): ApiError =>
  new ApiError(ErrorCode.URL_NOT_ALLOWED, `URL is not allowed: ${details}`, { field, reason, details });

export const urlNotAllowed = (reason: string, details: string): ApiError =>
  new ApiError(ErrorCode.URL_NOT_ALLOWED, `Agent URL is not allowed: ${details}`, { field: 'url', reason, details });

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
  new ApiError(ErrorCode.BUDGET_EXCEEDED, `Estimated cost ${estimatedCost} USD exceeds maxCost ${maxCost} USD`, {
    field: 'maxCost',
    estimatedCost,
    maxCost,
    suggestion: 'Raise maxCost, lower selectionCriteria.maxAgents, or narrow the selection to cheaper agents',
  });

/** Selection found nothing; `suggestion` says which criterion to relax. */
export const noAgentsAvailable = (criteria: Readonly<Record<string, unknown>>, suggestion: string): ApiError =>
  new ApiError(ErrorCode.NO_AGENTS_AVAILABLE, 'No agent matches the selection criteria', { criteria, suggestion });

/** Unknown id, or another account's execution: the same answer, so nothing leaks. */
export const executionNotFound = (id: string): ApiError =>
  new ApiError(ErrorCode.EXECUTION_NOT_FOUND, `Execution '${id}' not found`);

export const executionNotCancellable = (id: string, status: string): ApiError =>
  new ApiError(ErrorCode.EXECUTION_NOT_CANCELLABLE, `Execution '${id}' is ${status} and can no longer be cancelled`, { status });

export const idempotencyInProgress = (key: string): ApiError =>
  new ApiError(
    ErrorCode.IDEMPOTENCY_IN_PROGRESS,
    `A request with X-Idempotency-Key '${key}' is still being processed; retry shortly`,
    { retryAfter: 1 },
    { 'Retry-After': '1' },
  );

export const idempotencyKeyReused = (key: string): ApiError =>
  new ApiError(
    ErrorCode.IDEMPOTENCY_KEY_REUSED,
    `X-Idempotency-Key '${key}' was already used with a different request body; use a new key for a new request`,
  );

/** Unknown slug, or a workflow the account cannot see: the same answer. */
export const workflowNotFound = (slug: string): ApiError =>
  new ApiError(ErrorCode.WORKFLOW_NOT_FOUND, `Workflow '${slug}' not found`);

export const workflowAlreadyExists = (slug: string): ApiError =>
  new ApiError(ErrorCode.WORKFLOW_ALREADY_EXISTS, `Workflow '${slug}' already exists`, {
    field: 'slug',
    details: 'PUT /v1/workflows/{slug} replaces it; or choose another slug',
  });

/** Unknown approval id, one of another execution, or of another account's: the same answer. */
export const approvalNotFound = (id: string): ApiError =>
  new ApiError(ErrorCode.APPROVAL_NOT_FOUND, `Approval '${id}' not found`);

/** `status`: what the approval already is (approved, rejected, expired, cancelled). */
export const approvalAlreadyDecided = (id: string, status: string): ApiError =>
  new ApiError(ErrorCode.APPROVAL_ALREADY_DECIDED, `Approval '${id}' was already decided (${status})`, { status });
