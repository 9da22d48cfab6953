/**
 * Lua scripts from `lua/<name>-<numKeys>.lua`, read once and registered with ioredis'
 * defineCommand (EVALSHA, falling back to EVAL when the server has not cached the script).
 */
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { asset } from '../../../support/paths.js';

const SCRIPT_NAMES = ['ack-1', 'rate-limit-2', 'event-append-2'] as const;
type ScriptFile = (typeof SCRIPT_NAMES)[number];

export interface ScriptCommands {
  /** See lua/ack-1.lua. */
  batonAck(ackKey: string, workerId: string, ttlMs: number): Promise<number>;
  /** See lua/rate-limit-2.lua: `[admitted, minuteCount, dayCount]`. */
  batonRateLimit(
    minuteKey: string,
    dayKey: string,
    perMinute: number,
    perDay: number,
    minuteTtlMs: number,
    dayTtlMs: number,
  ): Promise<[number, number, number]>;
  /** See lua/event-append-2.lua: the event's sequence number. */
  batonEventAppend(
    seqKey: string,
    streamKey: string,
    type: string,
    data: string,
    maxLen: number,
    ttlMs: number,
    floorSeq: number,
  ): Promise<number>;
}

export type RedisWithScripts = Redis & ScriptCommands;

const COMMAND_NAMES: Record<ScriptFile, keyof ScriptCommands> = {
  'ack-1': 'batonAck',
  'rate-limit-2': 'batonRateLimit',
  'event-append-2': 'batonEventAppend',
};

let sources: Map<ScriptFile, string> | null = null;

function loadSources(): Map<ScriptFile, string> {
  if (sources === null) {
    sources = new Map(
      SCRIPT_NAMES.map((name) => [name, readFileSync(asset('src/adapters/stores/redis/lua', `${name}.lua`), 'utf8')]),
    );
  }
  return sources;
}

/** Registers every script on a connection; the key count comes from the file name. */
export function defineScripts(redis: Redis): RedisWithScripts {
  for (const [file, lua] of loadSources()) {
    const numberOfKeys = Number(file.slice(file.lastIndexOf('-') + 1));
    redis.defineCommand(COMMAND_NAMES[file], { numberOfKeys, lua });
  }
  return redis as RedisWithScripts;
}
