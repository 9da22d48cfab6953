/**
 * Orchestration (spec §4.1–4.3): POST /v1/orchestrate, GET /v1/executions/{id},
 * POST /v1/executions/{id}/cancel, the webhook delivery log GET /v1/executions/{id}/webhooks, and
 * the caller's executions newest first, GET /v1/executions. Executions of other accounts are 404.
 */
import { Permission } from '../auth/permissions.js';
import { asKey } from '../auth/principal.js';
import { invalidRequest } from '../errors.js';
import { json, route } from '../http/route.js';
import type { OrchestrationService } from '../orchestration/service.js';
import { OrchestrateBody } from '../schemas/orchestrate.js';
import type { ExecutionStatusName, WebhookStore } from '../stores/ports.js';
import { newestFirstQuery, withCursorCheck } from './list-query.js';
import { compile } from '../validation.js';
import { toDeliveryView } from '../webhooks/outbox.js';

const orchestrateBody = compile(OrchestrateBody);
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const EXECUTION_STATUSES: readonly ExecutionStatusName[] = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'];

export function executionRoutes(orchestration: OrchestrationService, webhooks: Pick<WebhookStore, 'listByExecution'>) {
  return [
    route({
      method: 'post',
      path: '/v1/orchestrate',
      access: { kind: 'permission', permission: Permission.ORCHESTRATE },
      body: orchestrateBody,
      headers: ['x-idempotency-key'],
      handle: async (ctx) => {
        const raw = ctx.headers['x-idempotency-key'] ?? '';
        if (raw !== '' && !IDEMPOTENCY_KEY.test(raw)) {
          throw invalidRequest('X-Idempotency-Key', 'X-Idempotency-Key must be 1 to 255 printable ASCII characters');
        }
        const result = await orchestration.submit(asKey(ctx.principal), ctx.body, raw === '' ? null : raw);
        return json(result.status, result.body);
      },
    }),
    route({
      method: 'get',
      path: '/v1/executions',
      access: { kind: 'permission', permission: Permission.EXECUTIONS_READ },
      handle: async (ctx) => {
        const query = newestFirstQuery(ctx.query, EXECUTION_STATUSES);
        const result = await withCursorCheck(() => orchestration.list(asKey(ctx.principal).account.id, query));
        return json(result.status, result.body);
      },
    }),
    route({
      method: 'get',
      path: '/v1/executions/:id',
      access: { kind: 'permission', permission: Permission.EXECUTIONS_READ },
      handle: async (ctx) => {
        const result = await orchestration.status(asKey(ctx.principal).account.id, ctx.params.id!);
        return json(result.status, result.body);
      },
    }),
    route({
      method: 'post',
      path: '/v1/executions/:id/cancel',
      access: { kind: 'permission', permission: Permission.EXECUTIONS_CANCEL },
      handle: async (ctx) => {
        const result = await orchestration.cancel(asKey(ctx.principal).account.id, ctx.params.id!);
        return json(result.status, result.body);
      },
    }),
    route({
      method: 'get',
      path: '/v1/executions/:id/webhooks',
      access: { kind: 'permission', permission: Permission.EXECUTIONS_READ },
      handle: async (ctx) => {
        const accountId = asKey(ctx.principal).account.id;
        // Reading the execution first keeps another account's id a 404, not an empty list.
        await orchestration.status(accountId, ctx.params.id!);
        const deliveries = await webhooks.listByExecution(accountId, ctx.params.id!);
        return json(200, { executionId: ctx.params.id, deliveries: deliveries.map(toDeliveryView) });
      },
    }),
  ];
}
