/**
 * AgentStore on SQL. Visibility (DESIGN §7) is in every query: an account sees global agents
 * (owner null) and its own. Registration serialises on the id with a transaction advisory lock,
 * so two concurrent registrations of one id in different scopes cannot both pass the check.
 */
import { InvalidAgentCursor, type AgentListQuery, type AgentPage, type AgentStore } from '../../../ports/agents.js';
import { type AgentConflict, type AgentPatch, type AgentRecord, type NewAgent } from '../../../domain/agents.js';
import type { Sql } from './connect.js';

interface AgentRow {
  readonly seq: string;
  readonly id: string;
  readonly owner_account_id: string | null;
  readonly name: string;
  readonly description: string;
  readonly url: string;
  readonly vertical: string;
  readonly capabilities: string[];
  readonly pricing_model: string;
  /** bigint: postgres.js returns it as a string. */
  readonly base_price_micro_usd: string | number;
  readonly timeout_ms: number;
  readonly examples: string[];
  readonly max_concurrency: number;
  readonly a2a_card_url: string | null;
  readonly created_at: Date;
  readonly updated_at: Date;
}

const COLUMNS = [
  'seq',
  'id',
  'owner_account_id',
  'name',
  'description',
  'url',
  'vertical',
  'capabilities',
  'pricing_model',
  'base_price_micro_usd',
  'timeout_ms',
  'examples',
  'max_concurrency',
  'a2a_card_url',
  'created_at',
  'updated_at',
] as const;

const UNIQUE_VIOLATION = '23505';
const CURSOR_PREFIX = 'a1:';

function toAgent(row: AgentRow): AgentRecord {
  return {
    id: row.id,
    ownerAccountId: row.owner_account_id,
    name: row.name,
    description: row.description,
    url: row.url,
    vertical: row.vertical,
    capabilities: row.capabilities,
    pricingModel: row.pricing_model,
    basePriceMicroUsd: Number(row.base_price_micro_usd),
    timeoutMs: row.timeout_ms,
    examples: row.examples,
    maxConcurrency: row.max_concurrency,
    a2aCardUrl: row.a2a_card_url,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

// The cursor is the registration sequence number; versioned so its format can change later.
function encodeCursor(seq: string): string {
  return Buffer.from(CURSOR_PREFIX + seq, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const seq = text.startsWith(CURSOR_PREFIX) ? text.slice(CURSOR_PREFIX.length) : '';
  if (!/^\d{1,18}$/.test(seq)) throw new InvalidAgentCursor();
  return seq;
}

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === UNIQUE_VIOLATION;
}

export function sqlAgentStore(sql: Sql): AgentStore {
  const columns = sql(COLUMNS);

  return {
    async create(agent: NewAgent) {
      try {
        return await sql.begin(async (tx) => {
          await tx`select pg_advisory_xact_lock(hashtext(${'baton.agent-id:' + agent.id}))`;
          const clashes = await tx<{ owner_account_id: string | null }[]>`
            select owner_account_id from agents
            where id = ${agent.id}
              and (owner_account_id is null or owner_account_id = ${agent.ownerAccountId} or ${agent.ownerAccountId === null})
            limit 1`;
          const clash = clashes[0];
          if (clash !== undefined) {
            const conflict: AgentConflict =
              clash.owner_account_id === agent.ownerAccountId ? 'same_scope' : clash.owner_account_id === null ? 'global' : 'account';
            return { conflict };
          }
          const [row] = await tx<AgentRow[]>`
            insert into agents (id, owner_account_id, name, description, url, vertical, capabilities,
                                pricing_model, base_price_micro_usd, timeout_ms, examples, max_concurrency, a2a_card_url)
            values (${agent.id}, ${agent.ownerAccountId}, ${agent.name}, ${agent.description}, ${agent.url},
                    ${agent.vertical}, ${[...agent.capabilities]}::text[], ${agent.pricingModel},
                    ${agent.basePriceMicroUsd}, ${agent.timeoutMs}, ${[...agent.examples]}::text[], ${agent.maxConcurrency}, ${agent.a2aCardUrl ?? null})
            returning ${columns}`;
          if (row === undefined) throw new Error('insert into agents returned no row');
          return { created: toAgent(row) };
        });
      } catch (err) {
        // The partial unique indexes are the backstop should the lock ever be bypassed.
        if (isUniqueViolation(err)) return { conflict: 'same_scope' as const };
        throw err;
      }
    },

    async getVisible(accountId, id) {
      // An account's own agent cannot coexist with a global one of the same id; order anyway.
      const [row] = await sql<AgentRow[]>`
        select ${columns} from agents
        where id = ${id} and (owner_account_id is null or owner_account_id = ${accountId})
        order by owner_account_id nulls last
        limit 1`;
      return row === undefined ? null : toAgent(row);
    },

    async getOwned(ownerAccountId, id) {
      const [row] = ownerAccountId === null
        ? await sql<AgentRow[]>`select ${columns} from agents where id = ${id} and owner_account_id is null`
        : await sql<AgentRow[]>`select ${columns} from agents where id = ${id} and owner_account_id = ${ownerAccountId}`;
      return row === undefined ? null : toAgent(row);
    },

    async listVisible(accountId, query: AgentListQuery): Promise<AgentPage> {
      const afterSeq = query.after === undefined ? '0' : decodeCursor(query.after);
      const vertical = query.vertical ?? null;
      const capability = query.capability ?? null;
      const rows = await sql<AgentRow[]>`
        select ${columns} from agents
        where (owner_account_id is null or owner_account_id = ${accountId})
          and seq > ${afterSeq}
          and (${vertical}::text is null or lower(vertical) = lower(${vertical}::text))
          and (${capability}::text is null
               or exists (select 1 from unnest(capabilities) c where lower(c) = lower(${capability}::text)))
        order by seq
        limit ${query.limit + 1}`;
      const page = rows.slice(0, query.limit);
      const last = page[page.length - 1];
      const nextCursor = rows.length > query.limit && last !== undefined ? encodeCursor(last.seq) : null;
      return { agents: page.map(toAgent), nextCursor };
    },

    async listAll() {
      const rows = await sql<AgentRow[]>`select ${columns} from agents order by seq`;
      return rows.map(toAgent);
    },

    async update(ownerAccountId, id, patch: AgentPatch) {
      const capabilities = patch.capabilities === undefined ? null : [...patch.capabilities];
      const examples = patch.examples === undefined ? null : [...patch.examples];
      const [row] = await sql<AgentRow[]>`
        update agents set
          name = coalesce(${patch.name ?? null}::text, name),
          description = coalesce(${patch.description ?? null}::text, description),
          url = coalesce(${patch.url ?? null}::text, url),
          vertical = coalesce(${patch.vertical ?? null}::text, vertical),
          capabilities = coalesce(${capabilities}::text[], capabilities),
          pricing_model = coalesce(${patch.pricingModel ?? null}::text, pricing_model),
          base_price_micro_usd = coalesce(${patch.basePriceMicroUsd ?? null}::bigint, base_price_micro_usd),
          timeout_ms = coalesce(${patch.timeoutMs ?? null}::integer, timeout_ms),
          examples = coalesce(${examples}::text[], examples),
          max_concurrency = coalesce(${patch.maxConcurrency ?? null}::integer, max_concurrency),
          updated_at = now()
        where id = ${id} and owner_account_id is not distinct from ${ownerAccountId}
        returning ${columns}`;
      return row === undefined ? null : toAgent(row);
    },

    async delete(ownerAccountId, id) {
      const [row] = await sql<AgentRow[]>`
        delete from agents where id = ${id} and owner_account_id is not distinct from ${ownerAccountId}
        returning ${columns}`;
      return row === undefined ? null : toAgent(row);
    },
  };
}
