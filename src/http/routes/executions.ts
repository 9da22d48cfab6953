/**
 * Orchestration (spec §4.1–4.3): POST /v1/orchestrate, GET /v1/executions/{id} (with `?wait=` a
 * long poll), GET /v1/executions/{id}/events (status events as SSE), POST /v1/executions/{id}/cancel,
 * the webhook delivery log GET /v1/executions/{id}/webhooks, and the caller's executions newest
 * first, GET /v1/executions. Executions of other accounts are 404.
 */
import { Permission } from '../../services/auth/permissions.js';
import { asKey } from '../../services/auth/principal.js';
import { accountIdOf } from '../caller.js';
import { invalidRequest } from '../../domain/errors.js';
import { json, route, type StreamReply } from '../route.js';
import type { OrchestrationService } from '../../services/orchestration/service.js';
import { OrchestrateBody } from '../../schemas/orchestrate.js';
import type { ExecutionStatusName } from '../../domain/executions.js';
import type { WebhookStore } from '../../ports/webhooks.js';
import { newestFirstPageSchema, newestFirstQuery, newestFirstQuerySchema, withCursorCheck } from './list-query.js';
import { compile } from '../../schemas/validation.js';
import { toDeliveryView } from '../../logic/webhooks/outbox.js';
import { Execution, ExecutionCreated, WebhookDeliveryList } from '../../schemas/responses/executions.js';
import { Type } from '@sinclair/typebox';

/** One event per status an execution reaches; each carries the status view. */
const ExecutionStatusEvents = Object.fromEntries(
  ['pending', 'running', 'completed', 'failed', 'cancelled'].map((status) => [`execution.${status}`, Execution]),
);

const orchestrateBody = compile(OrchestrateBody);
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
/** Longest long poll: below common proxy idle timeouts (nginx 60 s). */
export const MAX_WAIT_MS = 30_000;

/** `?wait=<ms>`: absent or 0 is a plain read; an integer up to MAX_WAIT_MS, else 400. */
function waitParam(query: URLSearchParams): number {
  const raw = query.get('wait');
  if (raw === null || raw === '') return 0;
  const value = /^\d{1,6}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value <= MAX_WAIT_MS)) throw invalidRequest('wait', `wait must be an integer number of milliseconds from 0 to ${MAX_WAIT_MS}`);
  return value;
}
const EXECUTION_STATUSES: readonly ExecutionStatusName[] = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'];

export function executionRoutes(orchestration: OrchestrationService, webhooks: Pick<WebhookStore, 'listByExecution'>) {
  return [
    route({
      method: 'post',
      path: '/v1/orchestrate',
      access: { kind: 'permission', permission: Permission.ORCHESTRATE },
      body: orchestrateBody,
      headers: ['x-idempotency-key'],
      doc: {
        summary: 'Select agents for a request and run them',
        tag: 'executions',
        responses: { 202: ExecutionCreated },
        errors: ['NO_AGENTS_AVAILABLE', 'BUDGET_EXCEEDED', 'QUEUE_FULL', 'IDEMPOTENCY_IN_PROGRESS', 'IDEMPOTENCY_KEY_REUSED', 'URL_NOT_ALLOWED'],
      },
      handle: async (ctx) => {
        const raw = ctx.headers['x-idempotency-key'] ?? '';
        if (raw !== '' && !IDEMPOTENCY_KEY.test(raw)) {
          throw invalidRequest('X-Idempotency-Key', 'X-Idempotency-Key must be 1 to 255 printable ASCII characters');
        }
        return json(202, await orchestration.submit(asKey(ctx.principal), ctx.body, raw === '' ? null : raw));
      },
    }),
    route({
      method: 'get',
      path: '/v1/executions',
      access: { kind: 'permission', permission: Permission.EXECUTIONS_READ },
      doc: {
        summary: "The caller's executions, newest first, a page at a time",
        query: newestFirstQuerySchema(EXECUTION_STATUSES),
        responses: { 200: newestFirstPageSchema('executions', Execution, 'ExecutionList') },
      },
      handle: async (ctx) => {
        const query = newestFirstQuery(ctx.query, EXECUTION_STATUSES);
        return json(200, await withCursorCheck(() => orchestration.list(accountIdOf(ctx.principal), query)));
      },
    }),
    route({
      method: 'get',
      path: '/v1/executions/:id',
      access: { kind: 'permission', permission: Permission.EXECUTIONS_READ },
      doc: {
        summary: "An execution's status, progress, result and cost; with ?wait= a long poll",
        query: Type.Object({
          wait: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_WAIT_MS, description: 'Milliseconds to hold the request until the execution is terminal' })),
        }),
        responses: { 200: Execution },
        errors: ['EXECUTION_NOT_FOUND'],
      },
      handle: async (ctx) => {
        const waitMs = waitParam(ctx.query);
        return json(200, await orchestration.status(accountIdOf(ctx.principal), ctx.params.id!, waitMs, waitMs > 0 ? ctx.signal : undefined));
      },
    }),
    route({
      method: 'get',
      path: '/v1/executions/:id/events',
      access: { kind: 'permission', permission: Permission.EXECUTIONS_READ },
      doc: {
        summary: "An execution's status changes as Server-Sent Events, ending after the terminal one",
        responses: {},
        events: ExecutionStatusEvents,
        errors: ['EXECUTION_NOT_FOUND'],
      },
      handle: async (ctx): Promise<StreamReply> => {
        const start = await orchestration.openEvents(accountIdOf(ctx.principal), ctx.params.id!);
        return { kind: 'stream', start };
      },
    }),
    route({
      method: 'post',
      path: '/v1/executions/:id/cancel',
      access: { kind: 'permission', permission: Permission.EXECUTIONS_CANCEL },
      doc: { summary: 'Cancel a pending or running execution', responses: { 200: Execution }, errors: ['EXECUTION_NOT_FOUND', 'EXECUTION_NOT_CANCELLABLE'] },
      handle: async (ctx) => {
        return json(200, await orchestration.cancel(accountIdOf(ctx.principal), ctx.params.id!));
      },
    }),
    route({
      method: 'get',
      path: '/v1/executions/:id/webhooks',
      access: { kind: 'permission', permission: Permission.EXECUTIONS_READ },
      doc: { summary: "The execution's webhook deliveries and their attempts", responses: { 200: WebhookDeliveryList }, errors: ['EXECUTION_NOT_FOUND'] },
      handle: async (ctx) => {
        const accountId = accountIdOf(ctx.principal);
        // Reading the execution first keeps another account's id a 404, not an empty list.
        await orchestration.status(accountId, ctx.params.id!);
        const deliveries = await webhooks.listByExecution(accountId, ctx.params.id!);
        return json(200, { executionId: ctx.params.id, deliveries: deliveries.map(toDeliveryView) });
      },
    }),
  ];
}
