/**
 * Concurrency slots and queues (DESIGN §10) for both Coordination adapters: the Redis side
 * registers the `slot-*.lua` scripts and decodes their replies; the in-process side is plain
 * code over a state shared by the adapters on one MemoryBus, doing what the scripts do
 * (synchronous, hence atomic in one process). Kept beside the adapters rather than in them so
 * the two implementations can be read side by side.
 */
import type { Redis } from 'ioredis';
import { readScript } from './scripts.js';
import type { ConcurrencyLimits, SlotAcquisition, SlotState } from '../../../domain/limits.js';
import type { RedisKeys } from './keys.js';

/** An account's slot keys expire this long after their last write (stale state of an idle account). */
export const SLOT_IDLE_TTL_MS = 24 * 3_600_000;

const SCRIPTS = {
  batonSlotAcquire: 'slot-acquire-3',
  batonSlotRelease: 'slot-release-3',
  batonSlotRenew: 'slot-renew-1',
  batonSlotState: 'slot-state-2',
} as const;

interface SlotCommands {
  batonSlotAcquire(slots: string, queue: string, meta: string, id: string, concurrent: number, queueSize: number, leaseMs: number, nowMs: number, ttlMs: number): Promise<Array<number | string>>;
  batonSlotRelease(slots: string, queue: string, meta: string, id: string, leaseMs: number, nowMs: number, ttlMs: number): Promise<string[]>;
  batonSlotRenew(slots: string, leaseMs: number, nowMs: number, ...ids: string[]): Promise<string[]>;
  batonSlotState(slots: string, queue: string, id: string, nowMs: number): Promise<number>;
}

let sources: Map<keyof typeof SCRIPTS, string> | null = null;

/** The slot operations on one command connection (scripts registered for EVALSHA). */
export interface RedisSlots {
  acquire(accountId: string, holderId: string, limits: ConcurrencyLimits, leaseMs: number, nowMs: number): Promise<SlotAcquisition>;
  release(accountId: string, holderId: string, leaseMs: number, nowMs: number): Promise<string[]>;
  renew(accountId: string, holderIds: readonly string[], leaseMs: number, nowMs: number): Promise<string[]>;
  state(accountId: string, holderId: string, nowMs: number): Promise<SlotState>;
}

export function assertConcurrencyLimits(limits: ConcurrencyLimits): void {
  for (const value of [limits.concurrent, limits.queueSize]) {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`concurrency limits must be non-negative integers, got ${value}`);
  }
}

const STATES: readonly SlotState[] = ['none', 'running', 'expired', 'queued'];

export function redisSlots(redis: Redis, k: RedisKeys): RedisSlots {
  sources ??= new Map((Object.keys(SCRIPTS) as Array<keyof typeof SCRIPTS>).map((command) => [command, readScript(SCRIPTS[command])]));
  for (const [command, lua] of sources) {
    const file = SCRIPTS[command];
    redis.defineCommand(command, { numberOfKeys: Number(file.slice(file.lastIndexOf('-') + 1)), lua });
  }
  const commands = redis as Redis & SlotCommands;
  return {
    async acquire(accountId, holderId, limits, leaseMs, nowMs) {
      assertConcurrencyLimits(limits);
      const reply = await commands.batonSlotAcquire(
        k.slots(accountId),
        k.slotQueue(accountId),
        k.slotMeta(accountId),
        holderId,
        limits.concurrent,
        limits.queueSize,
        leaseMs,
        nowMs,
        SLOT_IDLE_TTL_MS,
      );
      const promoted = reply.slice(2).map(String);
      const status = Number(reply[0]);
      if (status === 1) return { status: 'started', promoted };
      if (status === 2) return { status: 'queued', position: Number(reply[1]), promoted };
      return { status: 'full', promoted };
    },
    release: (accountId, holderId, leaseMs, nowMs) =>
      commands.batonSlotRelease(k.slots(accountId), k.slotQueue(accountId), k.slotMeta(accountId), holderId, leaseMs, nowMs, SLOT_IDLE_TTL_MS),
    async renew(accountId, holderIds, leaseMs, nowMs) {
      if (holderIds.length === 0) return [];
      return commands.batonSlotRenew(k.slots(accountId), leaseMs, nowMs, ...holderIds);
    },
    async state(accountId, holderId, nowMs) {
      const code = await commands.batonSlotState(k.slots(accountId), k.slotQueue(accountId), holderId, nowMs);
      return STATES[code] ?? 'none';
    },
  };
}

/** One account's slots and queue in process; Map order is arrival order (FIFO). */
interface MemoryAccountSlots {
  /** holder → lease end (epoch ms) */
  readonly slots: Map<string, number>;
  readonly queue: Set<string>;
  concurrent: number;
  /**
   * No lease ends before this (a lower bound: renewals only move ends later, releases only remove
   * them), so acquire and release look for ended leases only once one may have ended, not on
   * every call: O(1) amortized instead of a scan of every held slot.
   */
  nextExpiry: number;
}

/** Slot state of every account, shared like Redis keys by the adapters on one bus. */
export type MemorySlotTable = Map<string, MemoryAccountSlots>;

function accountOf(table: MemorySlotTable, accountId: string): MemoryAccountSlots {
  let entry = table.get(accountId);
  if (entry === undefined) {
    entry = { slots: new Map(), queue: new Set(), concurrent: 0, nextExpiry: Infinity };
    table.set(accountId, entry);
  }
  return entry;
}

/** Reclaims ended leases, then fills free slots from the head of the queue. */
function reclaimAndPromote(entry: MemoryAccountSlots, leaseEnd: number, nowMs: number): string[] {
  if (nowMs >= entry.nextExpiry) {
    let next = Infinity;
    for (const [id, end] of entry.slots) {
      if (end <= nowMs) entry.slots.delete(id);
      else if (end < next) next = end;
    }
    entry.nextExpiry = next;
  }
  const promoted: string[] = [];
  for (const id of entry.queue) {
    if (entry.slots.size >= entry.concurrent) break;
    entry.queue.delete(id);
    hold(entry, id, leaseEnd);
    promoted.push(id);
  }
  return promoted;
}

function hold(entry: MemoryAccountSlots, holderId: string, leaseEnd: number): void {
  entry.slots.set(holderId, leaseEnd);
  if (leaseEnd < entry.nextExpiry) entry.nextExpiry = leaseEnd;
}

/** What lua/slot-acquire-3.lua does. */
export function memoryAcquire(table: MemorySlotTable, accountId: string, holderId: string, limits: ConcurrencyLimits, leaseMs: number, nowMs: number): SlotAcquisition {
  assertConcurrencyLimits(limits);
  const entry = accountOf(table, accountId);
  entry.concurrent = limits.concurrent;
  const leaseEnd = nowMs + leaseMs;
  const promoted = reclaimAndPromote(entry, leaseEnd, nowMs);
  if (entry.slots.has(holderId)) {
    hold(entry, holderId, leaseEnd);
    return { status: 'started', promoted };
  }
  if (entry.queue.has(holderId)) {
    let position = 1;
    for (const id of entry.queue) {
      if (id === holderId) break;
      position++;
    }
    return { status: 'queued', position, promoted };
  }
  if (entry.slots.size < limits.concurrent && entry.queue.size === 0) {
    hold(entry, holderId, leaseEnd);
    return { status: 'started', promoted };
  }
  if (entry.queue.size < limits.queueSize) {
    entry.queue.add(holderId);
    return { status: 'queued', position: entry.queue.size, promoted };
  }
  if (entry.slots.size === 0 && entry.queue.size === 0) table.delete(accountId);
  return { status: 'full', promoted };
}

/** What lua/slot-release-3.lua does. */
export function memoryRelease(table: MemorySlotTable, accountId: string, holderId: string, leaseMs: number, nowMs: number): string[] {
  const entry = table.get(accountId);
  if (entry === undefined) return [];
  entry.slots.delete(holderId);
  entry.queue.delete(holderId);
  const promoted = reclaimAndPromote(entry, nowMs + leaseMs, nowMs);
  if (entry.slots.size === 0 && entry.queue.size === 0) table.delete(accountId);
  return promoted;
}

/** What lua/slot-renew-1.lua does. */
export function memoryRenew(table: MemorySlotTable, accountId: string, holderIds: readonly string[], leaseMs: number, nowMs: number): string[] {
  const entry = table.get(accountId);
  const lost: string[] = [];
  for (const id of holderIds) {
    const end = entry?.slots.get(id);
    if (entry !== undefined && end !== undefined && end > nowMs) entry.slots.set(id, nowMs + leaseMs);
    else lost.push(id);
  }
  return lost;
}

/** What lua/slot-state-2.lua does. */
export function memoryState(table: MemorySlotTable, accountId: string, holderId: string, nowMs: number): SlotState {
  const entry = table.get(accountId);
  if (entry === undefined) return 'none';
  const end = entry.slots.get(holderId);
  if (end !== undefined) return end > nowMs ? 'running' : 'expired';
  return entry.queue.has(holderId) ? 'queued' : 'none';
}
