/**
 * One autocannon run in its own process (spawned by bench/load.ts), options as JSON in argv[2]
 * (a LoadOptions), result as one JSON line (an AutocannonChildResult) on stdout. Latencies are
 * taken from autocannon's response events, which carry fractional milliseconds; its own
 * histogram keeps whole milliseconds only (kept as `p99CorrectedMs`, which at a fixed rate is
 * corrected for coordinated omission).
 */
import type { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import type { AutocannonChildResult, LoadOptions } from './load.js';

interface AutocannonResult {
  readonly latency: { readonly p99: number };
}

type Autocannon = (
  options: Record<string, unknown>,
  done: (error: Error | null, result: AutocannonResult) => void,
) => EventEmitter;

const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as Autocannon;

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const options = JSON.parse(process.argv[2] ?? '{}') as LoadOptions;
let latencies = new Float64Array(1 << 16);
let ok = 0;
let non2xx = 0;
let socketErrors = 0;
const started = performance.now();

const instance = autocannon(
  {
    url: options.url,
    method: options.method,
    headers: options.headers,
    ...(options.body !== null ? { body: options.body } : {}),
    connections: options.connections,
    duration: options.durationSeconds,
    ...(options.ratePerSecond !== undefined ? { overallRate: Math.max(1, Math.round(options.ratePerSecond)) } : {}),
  },
  (error, result) => {
    if (error !== null) {
      console.error(error.stack ?? String(error));
      process.exit(1);
    }
    const elapsedSeconds = (performance.now() - started) / 1000;
    const sorted = latencies.subarray(0, ok).sort();
    const out: AutocannonChildResult = {
      requests: ok + non2xx,
      ok,
      non2xx,
      socketErrors,
      elapsedSeconds,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      p99CorrectedMs: options.ratePerSecond !== undefined ? result.latency.p99 : null,
    };
    process.stdout.write(`${JSON.stringify(out)}\n`);
    process.exit(0);
  },
);

instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
  if (statusCode < 200 || statusCode > 299) {
    non2xx++;
    return;
  }
  if (ok === latencies.length) {
    const grown = new Float64Array(latencies.length * 2);
    grown.set(latencies);
    latencies = grown;
  }
  latencies[ok++] = responseTimeMs;
});
instance.on('reqError', () => {
  socketErrors++;
});
