/**
 * Every span Baton makes, one function each, so names and attributes are decided here once and
 * documented in docs/observability.md. Each returns null at once while tracing is off; every
 * `end…` accepts null, so a call site is one line either way. Failures carry the catalogue code
 * as `error.type` and the span status ERROR.
 */
import { SpanKind, SpanStatusCode, context, trace, type Attributes, type Span } from '@opentelemetry/api';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import { agentCallErrorCode, RunErrorCode, type AgentCallFailureKind } from '../../domain/errors.js';
import { activeTraceparent, contextFrom, traceparentOf } from './propagation.js';
import { activeTracer } from './state.js';

export type { Span } from '@opentelemetry/api';

// GenAI conventions are still "development" in the semantic-conventions package: the names are
// copied here rather than imported from its unstable entry point, as that package advises.
const GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
const GEN_AI_AGENT_ID = 'gen_ai.agent.id';
const GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
const GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
const GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
const GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
const GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
const GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
const GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';

/** Ends `span` as failed with a catalogue code (`error.type`) and its message. */
export function failSpan(span: Span, code: string, message?: string): void {
  span.setAttribute(ATTR_ERROR_TYPE, code);
  span.setStatus({ code: SpanStatusCode.ERROR, ...(message === undefined ? {} : { message }) });
}

// --- HTTP ------------------------------------------------------------------------------------

/** Reads request headers (uWS `HttpRequest`: only valid synchronously, in the handler). */
export interface HeaderSource {
  getHeader(lowerCaseName: string): string;
}

/** A server span for one request, child of the client's `traceparent` when it sent a valid one. */
export function startRequestSpan(method: string, route: string, path: string, req: HeaderSource): Span | null {
  const tracer = activeTracer();
  if (tracer === null) return null;
  const traceparent = req.getHeader('traceparent');
  const tracestate = req.getHeader('tracestate');
  return tracer.startSpan(
    `${method} ${route}`,
    { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_HTTP_ROUTE]: route, [ATTR_URL_PATH]: path } },
    contextFrom(traceparent, tracestate),
  );
}

/** Runs `handle(arg)` with `span` active, so store calls and started runs find it. */
export function inSpan<T, A, R>(span: Span, handle: (this: T, arg: A) => R, self: T, arg: A): R {
  return context.with(trace.setSpan(context.active(), span), handle, self, arg);
}

/** Ends a request span with its status; an error body's `error` field is the catalogue code. */
export function endRequestSpan(span: Span | null, status: number, body: unknown, requestId: string, clientAddress: string): void {
  if (span === null) return;
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  span.setAttribute('baton.request_id', requestId);
  span.setAttribute(ATTR_CLIENT_ADDRESS, clientAddress);
  if (status >= 400) {
    const code = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
    span.setAttribute(ATTR_ERROR_TYPE, typeof code === 'string' ? code : String(status));
    // Server spans are errors only for 5xx (HTTP semantic conventions); the code is kept either way.
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** What an actor message carries to continue the current request's trace (plain data). */
export function currentTraceparent(): string | undefined {
  return activeTracer() === null ? undefined : activeTraceparent();
}

// --- Runs --------------------------------------------------------------------------------------

export interface RunInfo {
  readonly id: string;
  readonly accountId: string;
}

// The open run span per execution id, so announcements made outside the actor (webhooks) can
// join the run's trace without changing the ExecutionEvents interface.
const runSpans = new Map<string, Span>();

/**
 * A span for one orchestration or workflow run (`orchestration` / `workflow`), child of the
 * request that submitted it (`traceparent` carried in the actor message); a root when absent.
 */
export function startRunSpan(kind: 'orchestration' | 'workflow', run: RunInfo, traceparent: string | undefined, attributes: Attributes = {}): Span | null {
  const tracer = activeTracer();
  if (tracer === null) return null;
  const span = tracer.startSpan(
    `${kind} ${run.id}`,
    { kind: SpanKind.INTERNAL, attributes: { 'baton.execution.id': run.id, 'baton.account.id': run.accountId, [GEN_AI_CONVERSATION_ID]: run.id, ...attributes } },
    contextFrom(traceparent),
  );
  runSpans.set(run.id, span);
  return span;
}

/** Ends a run span with its final status; `error` carries the run's catalogue code. */
export function endRunSpan(span: Span | null, runId: string, status: string, error: { readonly code: string; readonly message: string } | null, attributes: Attributes = {}): void {
  if (span === null) return;
  if (runSpans.get(runId) === span) runSpans.delete(runId);
  if (!span.isRecording()) return;
  span.setAttribute('baton.execution.status', status);
  span.setAttributes(attributes);
  if (error !== null) failSpan(span, error.code, error.message);
  span.end();
}

/** The `traceparent` of an open run (webhook announcements, made outside the run's actor). */
export function runTraceparent(runId: string): string | undefined {
  if (activeTracer() === null) return undefined;
  return traceparentOf(runSpans.get(runId));
}

/** The logging a run does; a pino logger satisfies it. */
export interface RunLogger {
  info(context: object, message: string): void;
  warn(context: object, message: string): void;
  error(context: object, message: string): void;
}

/** `logger` with the run's `trace_id` on every line, or `logger` itself while tracing is off. */
export function withTraceIds<L extends RunLogger>(logger: L, span: Span | null): L {
  if (span === null) return logger;
  const ids = { trace_id: span.spanContext().traceId };
  const child = (logger as { child?: (bindings: object) => L }).child;
  if (typeof child === 'function') return child.call(logger, ids);
  return {
    ...logger,
    info: (context: object, message: string) => logger.info({ ...ids, ...context }, message),
    warn: (context: object, message: string) => logger.warn({ ...ids, ...context }, message),
    error: (context: object, message: string) => logger.error({ ...ids, ...context }, message),
  };
}

// --- Agents and tools -------------------------------------------------------------------------

export interface AgentInfoForSpan {
  readonly id: string;
  readonly name: string;
  readonly url: string;
}

/** A client span `invoke_agent <name>` for one call to an agent's /execute (GenAI conventions). */
export function startAgentSpan(agent: AgentInfoForSpan, traceparent: string | undefined): Span | null {
  const tracer = activeTracer();
  if (tracer === null) return null;
  return tracer.startSpan(
    `invoke_agent ${agent.name}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [GEN_AI_OPERATION_NAME]: 'invoke_agent',
        [GEN_AI_AGENT_ID]: agent.id,
        [GEN_AI_AGENT_NAME]: agent.name,
        [ATTR_SERVER_ADDRESS]: hostOf(agent.url),
      },
    },
    contextFrom(traceparent ?? activeTraceparent()),
  );
}

/** What an agent call came to, as far as a span records it. */
export type AgentSpanOutcome =
  | { readonly ok: true; readonly metadata: { readonly cost: number | null; readonly model?: string; readonly tokensUsed?: { readonly input: number; readonly output: number } } }
  | { readonly ok: false; readonly kind: AgentCallFailureKind; readonly message: string; readonly cost?: number; readonly status?: number };


export function endAgentSpan(span: Span | null, outcome: AgentSpanOutcome): void {
  if (span === null) return;
  if (outcome.ok) {
    const m = outcome.metadata;
    // An agent may leave its cost out (the base price stands in later); only what it reported goes on the span.
    if (m.cost !== null) span.setAttribute('baton.agent.cost_usd', m.cost);
    if (m.model !== undefined) span.setAttribute(GEN_AI_RESPONSE_MODEL, m.model);
    if (m.tokensUsed !== undefined) {
      span.setAttribute(GEN_AI_USAGE_INPUT_TOKENS, m.tokensUsed.input);
      span.setAttribute(GEN_AI_USAGE_OUTPUT_TOKENS, m.tokensUsed.output);
    }
  } else {
    if (typeof outcome.cost === 'number') span.setAttribute('baton.agent.cost_usd', outcome.cost);
    if (typeof outcome.status === 'number') span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, outcome.status);
    failSpan(span, agentCallErrorCode(outcome.kind), outcome.message);
  }
  span.end();
}

/** A client span `execute_tool <name>` for one workflow tool call, child of the run. */
export function startToolSpan(name: string, callId: string, url: string, parent: Span | null): Span | null {
  const tracer = activeTracer();
  if (tracer === null) return null;
  return tracer.startSpan(
    `execute_tool ${name}`,
    {
      kind: SpanKind.CLIENT,
      attributes: { [GEN_AI_OPERATION_NAME]: 'execute_tool', [GEN_AI_TOOL_NAME]: name, [GEN_AI_TOOL_CALL_ID]: callId, [ATTR_SERVER_ADDRESS]: hostOf(url) },
    },
    contextFrom(traceparentOf(parent)),
  );
}

export function endToolSpan(span: Span | null, error: string | null): void {
  if (span === null) return;
  // Tool failures reach the agent as text; the span keeps one code for all of them.
  if (error !== null) failSpan(span, 'TOOL_FAILED', error);
  span.end();
}

// --- Approvals and webhooks -------------------------------------------------------------------

/** An internal span for the wait on one approval, from request to decision or expiry. */
export function startApprovalSpan(approvalId: string, toolName: string, parent: Span | null): Span | null {
  const tracer = activeTracer();
  if (tracer === null) return null;
  return tracer.startSpan(
    `approval ${toolName}`,
    { kind: SpanKind.INTERNAL, attributes: { 'baton.approval.id': approvalId, [GEN_AI_TOOL_NAME]: toolName } },
    contextFrom(traceparentOf(parent)),
  );
}

export function endApprovalSpan(span: Span | null, decision: string): void {
  if (span === null) return;
  span.setAttribute('baton.approval.decision', decision);
  if (decision === 'expired') failSpan(span, RunErrorCode.APPROVAL_EXPIRED);
  span.end();
}

/** A client span for one webhook delivery attempt, child of the run that announced it. */
export function startWebhookSpan(event: string, deliveryId: string, attempt: number, url: string, traceparent: string | undefined): Span | null {
  const tracer = activeTracer();
  if (tracer === null) return null;
  return tracer.startSpan(
    `webhook ${event}`,
    {
      kind: SpanKind.CLIENT,
      attributes: { 'baton.webhook.event': event, 'baton.webhook.delivery_id': deliveryId, 'baton.webhook.attempt': attempt, [ATTR_SERVER_ADDRESS]: hostOf(url) },
    },
    contextFrom(traceparent),
  );
}

export function endWebhookSpan(span: Span | null, statusCode: number | null, error: string | null): void {
  if (span === null) return;
  if (statusCode !== null) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, statusCode);
  if (error !== null) failSpan(span, 'WEBHOOK_DELIVERY_FAILED', error);
  span.end();
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'invalid';
  }
}
