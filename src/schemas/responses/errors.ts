/**
 * Error bodies: `{ error, message, requestId, ...extra }` (src/http/pipeline.ts), with the extra
 * fields each code of src/domain/errors.ts carries. A test checks every code has an entry here.
 * Each body's description, and its `x-retryable`, are the catalogue's.
 */
import { Type, type TProperties } from '@sinclair/typebox';
import { ErrorCatalogue, type ErrorCode } from '../../domain/errors.js';

const field = { field: Type.String({ description: 'The offending field (dotted path)' }) };
const details = { details: Type.String() };
const retryAfter = { retryAfter: Type.Integer({ description: 'Seconds; also sent as Retry-After' }) };

export const ErrorExtras: Readonly<Record<ErrorCode, TProperties>> = {
  INVALID_REQUEST: field,
  UNAUTHORIZED: details,
  KEY_EXPIRED: { expiredAt: Type.String({ format: 'date-time' }), ...details },
  FORBIDDEN: { requiredPermission: Type.String(), ...details },
  NOT_FOUND: {},
  METHOD_NOT_ALLOWED: { allowed: Type.Array(Type.String()) },
  PAYLOAD_TOO_LARGE: { limitBytes: Type.Integer() },
  UNSUPPORTED_MEDIA_TYPE: {},
  REQUEST_TIMEOUT: {},
  ACCOUNT_NOT_FOUND: field,
  KEY_NOT_FOUND: {},
  AGENT_NOT_FOUND: {},
  AGENT_ALREADY_EXISTS: { ...field, ...details },
  AGENT_UNREACHABLE: {
    ...field,
    probe: Type.Union([Type.Literal('health'), Type.Literal('info')]),
    reason: Type.String(),
    ...details,
  },
  URL_NOT_ALLOWED: { ...field, reason: Type.String(), ...details },
  NO_AGENTS_AVAILABLE: { criteria: Type.Record(Type.String(), Type.Unknown()), suggestion: Type.String() },
  BUDGET_EXCEEDED: { ...field, estimatedCost: Type.Number(), maxCost: Type.Number(), suggestion: Type.String() },
  EXECUTION_NOT_FOUND: {},
  EXECUTION_NOT_CANCELLABLE: { status: Type.String() },
  IDEMPOTENCY_IN_PROGRESS: retryAfter,
  IDEMPOTENCY_KEY_REUSED: {},
  WORKFLOW_NOT_FOUND: {},
  WORKFLOW_ALREADY_EXISTS: { ...field, ...details },
  APPROVAL_NOT_FOUND: {},
  APPROVAL_ALREADY_DECIDED: { status: Type.String() },
  RATE_LIMIT_EXCEEDED: {
    ...retryAfter,
    limit: Type.Integer(),
    remaining: Type.Integer(),
    resetAt: Type.String({ format: 'date-time' }),
    window: Type.Union([Type.Literal('minute'), Type.Literal('day')]),
  },
  QUEUE_FULL: { ...retryAfter, limit: Type.Integer(), queueSize: Type.Integer() },
  SERVICE_UNAVAILABLE: retryAfter,
  OVERLOADED: {
    ...retryAfter,
    reason: Type.Union([Type.Literal('backlog'), Type.Literal('saturated'), Type.Literal('event_loop_delay'), Type.Literal('agent_queue_wait')]),
    ...details,
  },
  INTERNAL_ERROR: {},
};

/** The body of one error code, named `<CODE>_Error` in the document. */
export function errorBody(code: ErrorCode) {
  return Type.Object(
    {
      error: Type.Literal(code),
      message: Type.String(),
      requestId: Type.String({ description: 'Also in X-Request-Id; quote it when reporting a problem' }),
      ...ErrorExtras[code],
    },
    {
      title: `${code}_Error`,
      description: `${ErrorCatalogue[code].meaning}. Fix: ${ErrorCatalogue[code].fix}. ${ErrorCatalogue[code].retryable ? 'Retryable' : 'Not retryable'}.`,
      'x-retryable': ErrorCatalogue[code].retryable,
    },
  );
}
