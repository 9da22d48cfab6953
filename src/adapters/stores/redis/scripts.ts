/**
 * Lua scripts from `lua/<name>-<numKeys>.lua`, read once and registered with ioredis'
 * defineCommand (EVALSHA, falling back to EVAL when the server has not cached the script).
 * A script cannot import another, so code two scripts share lives in `lua/includes/<name>.lua`
 * and is inlined where a script has the line `--- @include "<name>"` (as BullMQ does).
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

const LUA_DIR = 'src/adapters/stores/redis/lua';
const INCLUDE = /^--- @include "([a-z0-9-]+)"[ \t]*$/gm;

/** The source of `lua/<file>.lua` with its includes inlined (each at most once per script). */
export function readScript(file: string): string {
  return inline(readFileSync(asset(LUA_DIR, `${file}.lua`), 'utf8'), new Set());
}

function inline(source: string, included: Set<string>): string {
  return source.replace(INCLUDE, (_line, name: string) => {
    if (included.has(name)) return '';
    included.add(name);
    return inline(readFileSync(asset(LUA_DIR, 'includes', `${name}.lua`), 'utf8'), included).trimEnd();
  });
}

let sources: Map<ScriptFile, string> | null = null;

function loadSources(): Map<ScriptFile, string> {
  if (sources === null) {
    sources = new Map(SCRIPT_NAMES.map((name) => [name, readScript(name)]));
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
