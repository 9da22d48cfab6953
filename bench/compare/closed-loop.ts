/**
 * A closed-loop driver: `concurrency` virtual users each run one flow (a whole user journey,
 * several requests) again and again for `durationMs`, counting completed flows and their
 * latencies. Flows run in this process over undici pools, so the number that matters is flows
 * per second, not requests per second: every system is driven by the same loop.
 */
import { performance } from 'node:perf_hooks';

export interface FlowResult {
  readonly completed: number;
  readonly failed: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The first few distinct failure messages, for the report. */
  readonly failures: readonly string[];
}

export type Flow = () => Promise<void>;

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]!;
}

export async function runClosedLoop(flow: Flow, concurrency: number, durationMs: number): Promise<FlowResult> {
  const latencies: number[] = [];
  const failures = new Set<string>();
  let failed = 0;
  const t0 = performance.now();
  const endAt = t0 + durationMs;
  const user = async (): Promise<void> => {
    while (performance.now() < endAt) {
      const started = performance.now();
      try {
        await flow();
        latencies.push(performance.now() - started);
      } catch (error) {
        failed += 1;
        if (failures.size < 5) failures.add(error instanceof Error ? error.message.slice(0, 200) : String(error));
        // A failing system must not turn the loop into a busy spin.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, user));
  const elapsedSeconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    completed: latencies.length,
    failed,
    perSecond: latencies.length / elapsedSeconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    failures: [...failures],
  };
}
