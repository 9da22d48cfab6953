/**
 * Workflows (spec §4.9–4.12, DESIGN §8): definitions, runs, the SSE stream, cancel, approval
 * decisions, the pending-approval list and the caller's runs newest first (GET /v1/workflow-runs). Definitions written with the operator token are
 * global; with a key, the key's account's. Runs, streams and approvals of other accounts are 404.
 */
import { Permission } from '../../services/auth/permissions.js';
import { accountIdOf, scopeOf } from '../caller.js';
import { invalidRequest } from '../../domain/errors.js';
import { json, route, type StreamReply } from '../route.js';
import { DecisionBody, RunWorkflowBody, WorkflowReplaceBody } from '../../schemas/workflows.js';
import type { ApprovalStatus, WorkflowRunStatus } from '../../domain/workflows.js';
import { newestFirstPageSchema, newestFirstQuery, newestFirstQuerySchema, withCursorCheck } from './list-query.js';
import { compile, type Validator } from '../../schemas/validation.js';
import { workflowBody } from '../../services/workflows/definition.js';
import type { WorkflowsService } from '../../services/workflows/service.js';
import { Type } from '@sinclair/typebox';
import { Approval, ApprovalList, Workflow, WorkflowList, WorkflowRun, WorkflowRunStarted, WorkflowStreamEvents } from '../../schemas/responses/workflows.js';
import type { Admission } from '../../services/limits/admission.js';

const replaceBody = compile(WorkflowReplaceBody);
const runBody = compile(RunWorkflowBody);
const decisionSchema = compile(DecisionBody);
// The reason is optional, and so is the body itself: an empty POST decides without one.
const decisionBody: Validator<DecisionBody> = {
  schema: decisionSchema.schema,
  parse: (value) => decisionSchema.parse(value === undefined ? {} : value),
};
const RUN_STATUSES: readonly WorkflowRunStatus[] = ['running', 'completed', 'failed', 'cancelled'];
const APPROVAL_STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'rejected', 'expired', 'cancelled'];

export function workflowRoutes(workflows: WorkflowsService, admission: Pick<Admission, 'check'>) {
  const write = { kind: 'permission', permission: Permission.WORKFLOWS_WRITE, operator: true } as const;
  const read = { kind: 'permission', permission: Permission.WORKFLOWS_READ, operator: true } as const;
  return [
    route({
      method: 'post',
      path: '/v1/workflows',
      access: write,
      body: workflowBody,
      doc: { summary: 'Create a workflow definition', responses: { 201: Workflow }, errors: ['WORKFLOW_ALREADY_EXISTS', 'URL_NOT_ALLOWED'] },
      handle: async (ctx) => json(201, await workflows.create(scopeOf(ctx.principal), ctx.body)),
    }),
    route({
      method: 'get',
      path: '/v1/workflows',
      access: read,
      doc: { summary: 'List visible workflow definitions', responses: { 200: WorkflowList } },
      handle: async (ctx) => json(200, await workflows.list(scopeOf(ctx.principal))),
    }),
    route({
      method: 'get',
      path: '/v1/workflows/:slug',
      access: read,
      doc: { summary: 'One workflow definition', responses: { 200: Workflow }, errors: ['WORKFLOW_NOT_FOUND'] },
      handle: async (ctx) => json(200, await workflows.get(scopeOf(ctx.principal), ctx.params.slug!)),
    }),
    route({
      method: 'put',
      path: '/v1/workflows/:slug',
      access: write,
      body: replaceBody,
      doc: { summary: 'Replace a workflow definition', responses: { 200: Workflow }, errors: ['WORKFLOW_NOT_FOUND', 'URL_NOT_ALLOWED'] },
      handle: async (ctx) => json(200, await workflows.replace(scopeOf(ctx.principal), ctx.params.slug!, ctx.body)),
    }),
    route({
      method: 'del',
      path: '/v1/workflows/:slug',
      access: write,
      doc: { summary: 'Delete a workflow definition', responses: { 204: null }, errors: ['WORKFLOW_NOT_FOUND'] },
      handle: async (ctx) => {
        await workflows.remove(scopeOf(ctx.principal), ctx.params.slug!);
        return { kind: 'empty', status: 204 };
      },
    }),
    route({
      method: 'post',
      path: '/v1/workflows/:slug/run',
      access: { kind: 'permission', permission: Permission.WORKFLOWS_RUN },
      body: runBody,
      doc: { summary: 'Start a run; follow it on stream_url', responses: { 200: WorkflowRunStarted }, errors: ['WORKFLOW_NOT_FOUND', 'QUEUE_FULL'] },
      handle: async (ctx) => {
        admission.check();
        return json(200, await workflows.run(accountIdOf(ctx.principal), ctx.params.slug!, ctx.body));
      },
    }),
    route({
      method: 'get',
      path: '/v1/workflow-runs',
      access: { kind: 'permission', permission: Permission.WORKFLOWS_READ },
      doc: {
        summary: "The caller's workflow runs, newest first, a page at a time",
        query: newestFirstQuerySchema(RUN_STATUSES),
        responses: { 200: newestFirstPageSchema('runs', WorkflowRun, 'WorkflowRunList') },
      },
      handle: async (ctx) => {
        const query = newestFirstQuery(ctx.query, RUN_STATUSES);
        return json(200, await withCursorCheck(() => workflows.listRuns(accountIdOf(ctx.principal), query)));
      },
    }),
    route({
      method: 'get',
      path: '/v1/workflows/execute/:id',
      access: { kind: 'permission', permission: Permission.WORKFLOWS_READ },
      doc: { summary: "A run's status and final answer", responses: { 200: WorkflowRun }, errors: ['EXECUTION_NOT_FOUND'] },
      handle: async (ctx) => json(200, await workflows.status(accountIdOf(ctx.principal), ctx.params.id!)),
    }),
    route({
      method: 'post',
      path: '/v1/workflows/execute/:id/cancel',
      access: { kind: 'permission', permission: Permission.WORKFLOWS_RUN },
      doc: { summary: 'Cancel a run', responses: { 200: WorkflowRun }, errors: ['EXECUTION_NOT_FOUND', 'EXECUTION_NOT_CANCELLABLE'] },
      handle: async (ctx) => json(200, await workflows.cancel(accountIdOf(ctx.principal), ctx.params.id!)),
    }),
    route({
      method: 'get',
      path: '/api/v1/workflows/execute/:id/stream',
      access: { kind: 'permission', permission: Permission.WORKFLOWS_READ },
      headers: ['last-event-id'],
      doc: {
        summary: "A run's events as Server-Sent Events, from the start or after Last-Event-ID",
        query: Type.Object({ lastEventId: Type.Optional(Type.String({ description: 'Same as Last-Event-ID, for clients that cannot set headers' })) }),
        responses: {},
        events: WorkflowStreamEvents,
        errors: ['EXECUTION_NOT_FOUND'],
      },
      handle: async (ctx): Promise<StreamReply> => {
        // Last-Event-ID as browsers send it on reconnect; `?lastEventId=` for clients that cannot set headers.
        const lastEventId = ctx.headers['last-event-id'] || (ctx.query.get('lastEventId') ?? '');
        const start = await workflows.openStream(accountIdOf(ctx.principal), ctx.params.id!, lastEventId);
        return { kind: 'stream', start };
      },
    }),
    ...(['approve', 'reject'] as const).map((verb) =>
      route({
        method: 'post',
        path: `/v1/workflows/execute/:id/${verb}/:approvalId`,
        access: { kind: 'permission', permission: Permission.WORKFLOWS_APPROVE },
        body: decisionBody,
        doc: {
          summary: verb === 'approve' ? 'Approve a paused tool call; the run goes on' : 'Reject a paused tool call; the agent is told',
          responses: { 200: Approval },
          errors: ['EXECUTION_NOT_FOUND', 'APPROVAL_NOT_FOUND', 'APPROVAL_ALREADY_DECIDED'],
        },
        handle: async (ctx) => {
          const decision = verb === 'approve' ? 'approved' : 'rejected';
          return json(200, await workflows.decide(accountIdOf(ctx.principal), ctx.params.id!, ctx.params.approvalId!, decision, ctx.body.reason ?? null));
        },
      }),
    ),
    route({
      method: 'get',
      path: '/v1/approvals',
      access: { kind: 'permission', permission: Permission.WORKFLOWS_READ },
      doc: {
        summary: "The account's approvals, pending ones by default",
        tag: 'workflows',
        query: Type.Object({ status: Type.Optional(Type.Union(APPROVAL_STATUSES.map((s) => Type.Literal(s)), { default: 'pending' })) }),
        responses: { 200: ApprovalList },
      },
      handle: async (ctx) => {
        const raw = ctx.query.get('status') ?? 'pending';
        const status = APPROVAL_STATUSES.find((s) => s === raw);
        if (status === undefined) throw invalidRequest('status', `status must be one of ${APPROVAL_STATUSES.join(', ')}`);
        return json(200, await workflows.listApprovals(accountIdOf(ctx.principal), status));
      },
    }),
  ];
}
