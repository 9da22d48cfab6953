/**
 * Load generators for the bench, each run as its own process so it gets its own core: wrk when
 * installed (C, the least CPU per request), otherwise autocannon from devDependencies.
 * Both report requests per second and latency percentiles in milliseconds.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requests: number;
  /** Responses that were not 2xx, or socket errors. */
  readonly errors: number;
}

export interface LoadOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly connections: number;
  readonly durationSeconds: number;
}

export interface LoadGenerator {
  readonly name: string;
  readonly version: string;
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
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? NaN);
  const p50 = wrkMs(/^\s+50%\s+(\S+)/m.exec(output)?.[1] ?? '');
  const p99 = wrkMs(/^\s+99%\s+(\S+)/m.exec(output)?.[1] ?? '');
  const requests = Number(/(\d+) requests in/.exec(output)?.[1] ?? NaN);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  const errors = non2xx + (socketErrors === null ? 0 : socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0));
  return { requestsPerSecond: rps, p50Ms: p50, p99Ms: p99, requests, errors };
}

function wrk(version: string): LoadGenerator {
  return {
    name: 'wrk',
    version,
    async run(options) {
      const args = ['-t1', `-c${options.connections}`, `-d${options.durationSeconds}s`, '--latency'];
      for (const [name, value] of Object.entries(options.headers)) args.push('-H', `${name}: ${value}`);
      args.push(options.url);
      return parseWrk(await capture('wrk', args));
    },
  };
}

interface AutocannonJson {
  readonly requests: { readonly average: number; readonly total: number };
  readonly latency: { readonly p50: number; readonly p99: number };
  readonly non2xx: number;
  readonly errors: number;
}

function autocannon(script: string, version: string): LoadGenerator {
  return {
    name: 'autocannon',
    version,
    async run(options) {
      const args = [script, '--json', '-c', String(options.connections), '-d', String(options.durationSeconds)];
      for (const [name, value] of Object.entries(options.headers)) args.push('-H', `${name}=${value}`);
      args.push(options.url);
      const parsed = JSON.parse(await capture(process.execPath, args)) as AutocannonJson;
      return {
        requestsPerSecond: parsed.requests.average,
        p50Ms: parsed.latency.p50,
        p99Ms: parsed.latency.p99,
        requests: parsed.requests.total,
        errors: parsed.non2xx + parsed.errors,
      };
    },
  };
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
  try {
    const require = createRequire(import.meta.url);
    const pkg = require('autocannon/package.json') as { version: string };
    return autocannon(require.resolve('autocannon/autocannon.js'), pkg.version);
  } catch {
    return null;
  }
}
