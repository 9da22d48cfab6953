/**
 * Agents (spec §2.2, §4.4, §4.5, DESIGN §7). Visibility: the operator token manages global agents
 * (visible to every account); a key's account manages its own private agents and sees global
 * ones read-only. Another account's private agent is indistinguishable from a missing one (404).
 * `url` (and `timeoutMs`, `maxConcurrency`) appear only to the agent's owner: an account has no use for the address
 * of an operator-run agent, and must never learn another account's.
 */
import { Permission } from '../../services/auth/permissions.js';
import type { Principal } from '../../services/auth/principal.js';
import type { AgentStatsSnapshot } from '../../domain/agents.js';
import { probeAgent } from '../../services/agents/registration.js';
import { agentAlreadyExists, agentNotFound, forbidden, invalidRequest } from '../../domain/errors.js';
import { json, route } from '../route.js';
import { microsToUsd, usdToMicros } from '../../logic/orchestration/cost.js';
import { AgentRegistration, RegisterA2aAgentBody, RegisterAgentBody, UpdateAgentBody } from '../../schemas/agents.js';
import { checkContextDepth, SelectionPreviewBody } from '../../schemas/selection.js';
import type { SelectionPreview } from '../../logic/selection/index.js';
import type { Services } from '../../services/index.js';
import { InvalidAgentCursor } from '../../ports/agents.js';
import { type AgentPatch, type AgentRecord } from '../../domain/agents.js';
import { compile } from '../../schemas/validation.js';
import { fieldsFromCard, probeAgentCard } from '../../services/agents/a2a-registration.js';
import type { Validator } from '../../schemas/validation.js';
import { Type } from '@sinclair/typebox';
import { Agent, AgentDetail, AgentList, SelectionPreview as SelectionPreviewView } from '../../schemas/responses/agents.js';
import { Deleted } from '../../schemas/responses/common.js';

const registerBody = registrationValidator();
const updateBody = compile(UpdateAgentBody);
const previewBody = compile(SelectionPreviewBody);

/**
 * Picks the schema by the presence of `a2aCardUrl`, so an error names a field of the
 * registration the caller meant rather than the first branch of the union.
 */
function registrationValidator(): Validator<AgentRegistration> {
  const native = compile(RegisterAgentBody);
  const a2a = compile(RegisterA2aAgentBody);
  return {
    schema: AgentRegistration,
    parse: (value) => (typeof value === 'object' && value !== null && 'a2aCardUrl' in value ? a2a.parse(value) : native.parse(value)),
  };
}

/** An A2A agent reports no cost; without declared pricing its calls cost nothing. */
const A2A_DEFAULT_PRICING = { model: 'per_execution', basePrice: 0 } as const;

export const DEFAULT_AGENT_TIMEOUT_MS = 30_000;
export const DEFAULT_AGENT_MAX_CONCURRENCY = 16;
/** Ids that are also path segments under /v1/agents. */
const RESERVED_IDS: ReadonlySet<string> = new Set(['selection-preview']);
export const LIST_DEFAULT_LIMIT = 50;
export const LIST_MAX_LIMIT = 200;

const ListAgentsQuery = Type.Object({
  vertical: Type.Optional(Type.String({ maxLength: 64, description: 'Only agents of this vertical' })),
  capability: Type.Optional(Type.String({ maxLength: 128, description: 'Only agents with this capability' })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'nextCursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_MAX_LIMIT, default: LIST_DEFAULT_LIMIT })),
});

const read = { kind: 'permission', permission: Permission.AGENTS_READ, operator: true } as const;
const write = { kind: 'permission', permission: Permission.AGENTS_WRITE, operator: true } as const;

/** The scope a caller acts in: its account, or null (global) for the operator token. */
function scopeOf(principal: Principal): string | null {
  return principal.kind === 'key' ? principal.account.id : null;
}

export function agentView(record: AgentRecord, callerScope: string | null): Record<string, unknown> {
  const owned = record.ownerAccountId === callerScope;
  return {
    id: record.id,
    name: record.name,
    description: record.description,
    vertical: record.vertical,
    capabilities: record.capabilities,
    examples: record.examples,
    pricing: { model: record.pricingModel, basePrice: microsToUsd(record.basePriceMicroUsd) },
    scope: record.ownerAccountId === null ? 'global' : 'account',
    protocol: record.a2aCardUrl == null ? 'baton' : 'a2a',
    ...(owned ? { url: record.url, timeoutMs: record.timeoutMs, maxConcurrency: record.maxConcurrency } : {}),
    ...(owned && record.a2aCardUrl != null ? { a2aCardUrl: record.a2aCardUrl } : {}),
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
  };
}

function statusView(stats: AgentStatsSnapshot): Record<string, unknown> {
  return {
    healthy: stats.healthy,
    circuit: stats.circuit,
    successRate: Math.round(stats.successRate * 1e4) / 1e4,
    latencyMs: stats.latencyMs === null ? null : Math.round(stats.latencyMs),
    inFlight: stats.inFlight,
    queued: stats.queued,
    lastHealthCheckAt: stats.lastHealthCheckAtMs === null ? null : new Date(stats.lastHealthCheckAtMs).toISOString(),
    lastHealthError: stats.lastHealthError,
  };
}

function previewView(preview: SelectionPreview, names: (id: string) => { name: string; vertical: string } | undefined): Record<string, unknown> {
  return {
    criteria: preview.criteria,
    selected: preview.selected.map((s) => ({ id: s.agent.id, name: s.agent.name, vertical: s.agent.vertical, confidence: s.confidence })),
    candidates: preview.candidates.map((c) => {
      // Only the name and vertical: the stored record also holds the URL, owner and internal units.
      const agent = names(c.agentId);
      return {
        id: c.agentId,
        ...(agent !== undefined ? { name: agent.name, vertical: agent.vertical } : {}),
        status: c.status,
        selected: c.selected,
        confidence: Math.round(c.confidence * 1e4) / 1e4,
        relevance: Math.round(c.relevance * 1e4) / 1e4,
        reliability: Math.round(c.reliability * 1e4) / 1e4,
        signals: c.signals,
        matches: c.matches,
        reasons: c.reasons,
      };
    }),
  };
}

function queryText(query: URLSearchParams, name: string, maxLength: number): string | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  if (value.length > maxLength) throw invalidRequest(name, `'${name}' must be at most ${maxLength} characters`);
  return value;
}

function queryLimit(query: URLSearchParams): number {
  const raw = query.get('limit');
  if (raw === null || raw === '') return LIST_DEFAULT_LIMIT;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > LIST_MAX_LIMIT) {
    throw invalidRequest('limit', `'limit' must be an integer from 1 to ${LIST_MAX_LIMIT}`);
  }
  return limit;
}

export function agentRoutes(services: Services) {
  const store = services.stores.agents;
  const directory = services.agents;
  const allowPrivate = services.config.allowPrivateUrls;

  /** The caller's own agent, or the error saying why it cannot change it. */
  const owned = async (principal: Principal, id: string): Promise<AgentRecord> => {
    const scope = scopeOf(principal);
    const record = await store.getOwned(scope, id);
    if (record !== null) return record;
    if (scope !== null && (await store.getOwned(null, id)) !== null) {
      throw forbidden(Permission.AGENTS_WRITE, `Agent '${id}' is global; only the operator token can change it`);
    }
    throw agentNotFound(id);
  };

  /** What a native registration stores after probing /health and /info. */
  const nativeFields = async (body: RegisterAgentBody, signal: AbortSignal) => {
    const probe = await probeAgent(services.agentClient, body.url, allowPrivate, signal);
    return {
      name: body.name,
      description: body.description,
      url: body.url,
      vertical: body.vertical,
      capabilities: body.capabilities,
      // The owner's own list wins; otherwise what the agent's /info offers.
      examples: body.examples ?? probe.info.examples ?? [],
    };
  };

  return [
    route({
      method: 'post',
      path: '/v1/agents',
      access: write,
      body: registerBody,
      doc: {
        summary: 'Register an agent (probed at /health and /info first), or an A2A agent by its agent card URL (the card is fetched first)',
        responses: { 201: Agent },
        errors: ['AGENT_ALREADY_EXISTS', 'AGENT_UNREACHABLE', 'URL_NOT_ALLOWED'],
      },
      handle: async ({ body, principal, signal }) => {
        const scope = scopeOf(principal);
        if (RESERVED_IDS.has(body.id)) throw invalidRequest('id', `'${body.id}' is reserved; choose another id`);
        // Fail on the id before probing: a duplicate is cheaper to report than an unreachable agent.
        const existing = await store.getVisible(scope, body.id);
        if (existing !== null) throw agentAlreadyExists(body.id, existing.ownerAccountId === scope ? 'same_scope' : 'global');
        const described = 'a2aCardUrl' in body
          ? fieldsFromCard(body, await probeAgentCard(services.a2aAgents.cardFetch, body.a2aCardUrl, allowPrivate, signal))
          : await nativeFields(body, signal);
        const pricing = body.pricing ?? A2A_DEFAULT_PRICING;
        const result = await store.create({
          id: body.id,
          ownerAccountId: scope,
          ...described,
          pricingModel: pricing.model,
          basePriceMicroUsd: usdToMicros(pricing.basePrice),
          timeoutMs: body.timeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS,
          maxConcurrency: body.maxConcurrency ?? DEFAULT_AGENT_MAX_CONCURRENCY,
        });
        if ('conflict' in result) throw agentAlreadyExists(body.id, result.conflict);
        await directory.changed(scope, body.id);
        return json(201, agentView(result.created, scope));
      },
    }),
    route({
      method: 'get',
      path: '/v1/agents',
      access: read,
      doc: { summary: 'List visible agents, a page at a time', query: ListAgentsQuery, responses: { 200: AgentList } },
      handle: async ({ principal, query }) => {
        const scope = scopeOf(principal);
        const vertical = queryText(query, 'vertical', 64);
        const capability = queryText(query, 'capability', 128);
        const after = queryText(query, 'cursor', 200);
        try {
          const page = await store.listVisible(scope, {
            limit: queryLimit(query),
            ...(vertical !== undefined ? { vertical } : {}),
            ...(capability !== undefined ? { capability } : {}),
            ...(after !== undefined ? { after } : {}),
          });
          // Health and circuit state come from this worker's in-memory view, so listing them is free.
          const agents = page.agents.map((a) => {
            const stats = directory.stats(scope, a.id);
            return { ...agentView(a, scope), ...(stats !== undefined ? { status: statusView(stats) } : {}) };
          });
          return json(200, { agents, nextCursor: page.nextCursor });
        } catch (error) {
          if (error instanceof InvalidAgentCursor) throw invalidRequest('cursor', "'cursor' is not a cursor this service issued");
          throw error;
        }
      },
    }),
    route({
      method: 'post',
      path: '/v1/agents/selection-preview',
      access: read,
      body: previewBody,
      doc: { summary: 'Which agents a request would select, and why each other agent was not', responses: { 200: SelectionPreviewView } },
      handle: ({ body, principal }) => {
        checkContextDepth(body.context);
        const scope = scopeOf(principal);
        const preview = directory.preview(scope, {
          query: body.query,
          ...(body.context !== undefined ? { context: body.context } : {}),
          ...(body.selectionCriteria !== undefined ? { selectionCriteria: body.selectionCriteria } : {}),
        });
        return json(200, previewView(preview, (id) => directory.visible(scope, id)));
      },
    }),
    route({
      method: 'get',
      path: '/v1/agents/:id',
      access: read,
      doc: { summary: 'One agent, with its health and circuit state', responses: { 200: AgentDetail }, errors: ['AGENT_NOT_FOUND'] },
      handle: async ({ principal, params }) => {
        const scope = scopeOf(principal);
        const id = params.id!;
        const record = await store.getVisible(scope, id);
        if (record === null) throw agentNotFound(id);
        const stats = directory.stats(scope, id);
        return json(200, { ...agentView(record, scope), ...(stats !== undefined ? { status: statusView(stats) } : {}) });
      },
    }),
    route({
      method: 'patch',
      path: '/v1/agents/:id',
      access: write,
      body: updateBody,
      doc: { summary: 'Change an agent (a new url is probed first)', responses: { 200: Agent }, errors: ['AGENT_NOT_FOUND', 'AGENT_UNREACHABLE', 'URL_NOT_ALLOWED'] },
      handle: async ({ principal, params, body, signal }) => {
        const scope = scopeOf(principal);
        const current = await owned(principal, params.id!);
        if (body.url !== undefined && current.a2aCardUrl != null) {
          throw invalidRequest('url', "An A2A agent's endpoint comes from its agent card; register it again to change it");
        }
        const probe =
          body.url !== undefined && body.url !== current.url ? await probeAgent(services.agentClient, body.url, allowPrivate, signal) : undefined;
        // A new URL may be a new agent: its /info examples replace the old ones unless the PATCH sets them.
        const examples = body.examples ?? probe?.info.examples;
        const patch: AgentPatch = {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
          ...(body.url !== undefined ? { url: body.url } : {}),
          ...(body.vertical !== undefined ? { vertical: body.vertical } : {}),
          ...(body.capabilities !== undefined ? { capabilities: body.capabilities } : {}),
          ...(body.pricing !== undefined ? { pricingModel: body.pricing.model, basePriceMicroUsd: usdToMicros(body.pricing.basePrice) } : {}),
          ...(body.timeoutMs !== undefined ? { timeoutMs: body.timeoutMs } : {}),
          ...(examples !== undefined ? { examples } : {}),
          ...(body.maxConcurrency !== undefined ? { maxConcurrency: body.maxConcurrency } : {}),
        };
        const updated = await store.update(scope, current.id, patch);
        if (updated === null) throw agentNotFound(current.id);
        await directory.changed(scope, current.id);
        return json(200, agentView(updated, scope));
      },
    }),
    route({
      method: 'del',
      path: '/v1/agents/:id',
      access: write,
      doc: { summary: 'Remove an agent', responses: { 200: Deleted }, errors: ['AGENT_NOT_FOUND'] },
      handle: async ({ principal, params }) => {
        const scope = scopeOf(principal);
        const current = await owned(principal, params.id!);
        const removed = await store.delete(scope, current.id);
        if (removed === null) throw agentNotFound(current.id);
        await directory.changed(scope, current.id);
        return json(200, { id: removed.id, deleted: true });
      },
    }),
  ];
}
