/**
 * Baton's typed client: every route through `api` (openapi-fetch, typed by schema.ts, which is
 * generated from the OpenAPI document), plus the helpers callers otherwise write by hand.
 *
 *   const baton = createBatonClient({ baseUrl: 'http://localhost:8080', apiKey: process.env.BATON_KEY! });
 *   const { executionId } = await baton.orchestrate({ query: 'Summarise this contract' });
 *   const done = await baton.waitForExecution(executionId);
 */
import createClient, { type Client } from 'openapi-fetch';
import { unwrap } from './errors.js';
import type { components, paths } from './schema.js';
import { workflowEvents, type StreamOptions, type WorkflowEvent } from './stream.js';
import { waitForExecution, type Execution, type WaitOptions } from './wait.js';

export { BatonApiError } from './errors.js';
export { verifyWebhook, verifySignature, type VerifyResult, type VerifiedWebhook } from '../logic/webhooks/verify.js';
export type { components, paths } from './schema.js';
export type { Execution, StreamOptions, WaitOptions, WorkflowEvent };

type Schemas = components['schemas'];
export type Approval = Schemas['Approval'];

export interface BatonClientOptions {
  /** e.g. http://localhost:8080 (no trailing slash needed). */
  readonly baseUrl: string;
  /** An API key (mk_…) or, for operator routes, the operator token. */
  readonly apiKey: string;
  /** Defaults to the global fetch. */
  readonly fetch?: typeof fetch;
}

export interface BatonClient {
  /** The typed fetch layer: `api.GET('/v1/agents/{id}', { params: { path: { id } } })`. */
  readonly api: Client<paths>;
  orchestrate(body: Schemas['OrchestrateBody'], options?: { idempotencyKey?: string }): Promise<Schemas['ExecutionCreated']>;
  /** Resolves with the execution once COMPLETED, FAILED or CANCELLED. */
  waitForExecution(id: string, options?: WaitOptions): Promise<Execution>;
  runWorkflow(slug: string, body: Schemas['RunWorkflowBody']): Promise<Schemas['WorkflowRunStarted']>;
  /** A run's events, resuming with Last-Event-ID after a dropped connection; ends after `done`. */
  workflowEvents(executionId: string, options?: StreamOptions): AsyncGenerator<WorkflowEvent>;
  /** Approvals of the key's account; pending ones unless another status is asked for. */
  listApprovals(status?: Approval['status']): Promise<Approval[]>;
  approve(executionId: string, approvalId: string, reason?: string): Promise<Approval>;
  reject(executionId: string, approvalId: string, reason?: string): Promise<Approval>;
}

export function createBatonClient(options: BatonClientOptions): BatonClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const headers = { Authorization: `Bearer ${options.apiKey}` };
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const api = createClient<paths>({ baseUrl, headers, fetch: fetchImpl });

  const decide = async (verb: 'approve' | 'reject', id: string, approvalId: string, reason?: string) => {
    const params = { path: { id, approvalId } };
    const body = reason === undefined ? {} : { reason };
    return unwrap(verb === 'approve'
      ? await api.POST('/v1/workflows/execute/{id}/approve/{approvalId}', { params, body })
      : await api.POST('/v1/workflows/execute/{id}/reject/{approvalId}', { params, body }));
  };

  return {
    api,
    async orchestrate(body, { idempotencyKey } = {}) {
      const params = idempotencyKey === undefined ? {} : { header: { 'x-idempotency-key': idempotencyKey } };
      return unwrap(await api.POST('/v1/orchestrate', { body, params }));
    },
    waitForExecution: (id, waitOptions) => waitForExecution(api, id, waitOptions),
    async runWorkflow(slug, body) {
      return unwrap(await api.POST('/v1/workflows/{slug}/run', { params: { path: { slug } }, body }));
    },
    workflowEvents: (executionId, streamOptions) => workflowEvents({ baseUrl, headers, fetch: fetchImpl }, executionId, streamOptions),
    async listApprovals(status = 'pending') {
      return unwrap(await api.GET('/v1/approvals', { params: { query: { status } } })).approvals;
    },
    approve: (executionId, approvalId, reason) => decide('approve', executionId, approvalId, reason),
    reject: (executionId, approvalId, reason) => decide('reject', executionId, approvalId, reason),
  };
}
