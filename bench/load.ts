/**
 * Load generators for the bench, each run as its own process so it gets its own core: wrk when
 * installed (C, the least CPU per request), otherwise autocannon from devDependencies. Fixed-rate
 * runs (`ratePerSecond`) always use autocannon: wrk 4 has no fixed rate.
 * Both report requests per second, 2xx vs the rest, and latency percentiles in milliseconds.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type HttpMethod = 'GET' | 'POST';

export interface LoadResult {
  /** Every response (2xx or not) per second. */
  readonly requestsPerSecond: number;
  /** 2xx responses per second: what a scenario actually achieved. */
  readonly okPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Responses received. */
  readonly requests: number;
  readonly ok: number;
  /** Responses that were not 2xx (wrk counts 3xx as fine; no scenario expects one). */
  readonly non2xx: number;
  /** Connect/read/write errors and timeouts. */
  readonly socketErrors: number;
  /** Which responses the percentiles cover. */
  readonly latencyOf: '2xx' | 'all';
  /** autocannon only: its own p99, corrected for coordinated omission at a fixed rate, 1 ms resolution. */
  readonly p99CorrectedMs: number | null;
}

export interface LoadOptions {
  readonly url: string;
  readonly method: HttpMethod;
  readonly headers: Readonly<Record<string, string>>;
  /** Sent with every request (POST); set `content-type` in `headers`. */
  readonly body: string | null;
  readonly connections: number;
  readonly durationSeconds: number;
  /** Fixed overall request rate; only generators with `fixedRate` accept it. */
  readonly ratePerSecond?: number;
}

export interface LoadGenerator {
  readonly name: string;
  readonly version: string;
  readonly fixedRate: boolean;
  run(options: LoadOptions): Promise<LoadResult>;
}

function capture(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} exited ${code}: ${err || out}`))));
  });
}

/** wrk's latency units (us, ms, s) to milliseconds. */
function wrkMs(value: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim());
  if (match === null) return NaN;
  const n = Number(match[1]);
  return match[2] === 'us' ? n / 1000 : match[2] === 'ms' ? n : match[2] === 's' ? n * 1000 : n * 60_000;
}

export function parseWrk(output: string): LoadResult {
  const p50 = wrkMs(/^\s+50%\s+(\S+)/m.exec(output)?.[1] ?? '');
  const p99 = wrkMs(/^\s+99%\s+(\S+)/m.exec(output)?.[1] ?? '');
  const summary = /(\d+) requests in ([\d.]+)(us|ms|s|m)/.exec(output);
  const requests = Number(summary?.[1] ?? NaN);
  const seconds = summary === null ? NaN : wrkMs(`${summary[2]}${summary[3]}`) / 1000;
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const socketErrors = socket === null ? 0 : socket.slice(1).reduce((sum, n) => sum + Number(n), 0);
  const ok = requests - non2xx;
  return {
    requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? NaN),
    okPerSecond: ok / seconds,
    p50Ms: p50,
    p99Ms: p99,
    requests,
    ok,
    non2xx,
    socketErrors,
    latencyOf: 'all',
    p99CorrectedMs: null,
  };
}

/** A Lua long-bracket literal that cannot be closed early by the text inside it. */
function luaString(text: string): string {
  let level = '';
  while (text.includes(`]${level}]`)) level += '=';
  return `[${level}[${text}]${level}]`;
}

/** The wrk script for a method and body; headers stay on the command line (-H). */
export function wrkScript(method: HttpMethod, body: string | null): string {
  const lines = [`wrk.method = "${method}"`];
  if (body !== null) lines.push(`wrk.body = ${luaString(body)}`);
  return `${lines.join('\n')}\n`;
}

function wrk(version: string): LoadGenerator {
  return {
    name: 'wrk',
    version,
    fixedRate: false,
    async run(options) {
      if (options.ratePerSecond !== undefined) throw new Error('wrk has no fixed request rate; use the autocannon generator');
      const args = ['-t1', `-c${options.connections}`, `-d${options.durationSeconds}s`, '--latency'];
      for (const [name, value] of Object.entries(options.headers)) args.push('-H', `${name}: ${value}`);
      let dir: string | null = null;
      if (options.method !== 'GET' || options.body !== null) {
        dir = mkdtempSync(path.join(os.tmpdir(), 'baton-bench-wrk-'));
        const script = path.join(dir, 'request.lua');
        writeFileSync(script, wrkScript(options.method, options.body));
        args.push('-s', script);
      }
      args.push(options.url);
      try {
        return parseWrk(await capture('wrk', args));
      } finally {
        if (dir !== null) rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** What bench/autocannon-child.ts prints: one JSON object. */
export interface AutocannonChildResult {
  readonly requests: number;
  readonly ok: number;
  readonly non2xx: number;
  readonly socketErrors: number;
  readonly elapsedSeconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p99CorrectedMs: number | null;
}

const compiled = fileURLToPath(import.meta.url).endsWith('.js');

function autocannon(version: string): LoadGenerator {
  // The child runs autocannon's API itself: the CLI's percentiles are whole milliseconds, too
  // coarse for a 2 ms budget, while its response events carry fractional times.
  const child = compiled
    ? [fileURLToPath(new URL('./autocannon-child.js', import.meta.url))]
    : ['--import', 'tsx', fileURLToPath(new URL('./autocannon-child.ts', import.meta.url))];
  return {
    name: 'autocannon',
    version,
    fixedRate: true,
    async run(options) {
      const parsed = JSON.parse(await capture(process.execPath, [...child, JSON.stringify(options)])) as AutocannonChildResult;
      return {
        requestsPerSecond: parsed.requests / parsed.elapsedSeconds,
        okPerSecond: parsed.ok / parsed.elapsedSeconds,
        p50Ms: parsed.p50Ms,
        p99Ms: parsed.p99Ms,
        requests: parsed.requests,
        ok: parsed.ok,
        non2xx: parsed.non2xx,
        socketErrors: parsed.socketErrors,
        latencyOf: '2xx',
        p99CorrectedMs: parsed.p99CorrectedMs,
      };
    },
  };
}

function autocannonVersion(): string | null {
  try {
    const require = createRequire(import.meta.url);
    return (require('autocannon/package.json') as { version: string }).version;
  } catch {
    return null;
  }
}

/** autocannon, the generator for fixed-rate runs whatever drives the peak runs; null if not installed. */
export function fixedRateGenerator(): LoadGenerator | null {
  const version = autocannonVersion();
  return version === null ? null : autocannon(version);
}

/** wrk if it is on PATH, else autocannon; null if neither is available. */
export function pickLoadGenerator(prefer: string | undefined): LoadGenerator | null {
  if (prefer !== 'autocannon') {
    try {
      const banner = execFileSync('wrk', ['--version'], { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
      return wrk(/wrk (\S+)/.exec(banner)?.[1] ?? 'unknown');
    } catch (error) {
      // wrk --version exits 1 after printing its banner; the binary exists if it printed one.
      const out = String((error as { stdout?: Buffer }).stdout ?? '');
      if (out.includes('wrk')) return wrk(/wrk (\S+)/.exec(out)?.[1] ?? 'unknown');
    }
  }
  return fixedRateGenerator();
}
