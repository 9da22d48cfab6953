/**
 * Periodic runtime samples: event-loop delay (perf_hooks histogram, reset each interval) and a
 * timed ping of each backing store. Timers are unref'd so they never keep a worker alive, and a
 * ping still in flight is not started again (a hung store yields one error, not a pile-up).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Metrics, StoreName } from './index.js';

export interface RuntimeSamplerOptions {
  readonly metrics: Pick<Metrics, 'eventLoopLag' | 'storeLatency'>;
  readonly stores: Readonly<Partial<Record<StoreName, () => Promise<void>>>>;
  /** Default 10,000. */
  readonly intervalMs?: number;
}

export interface RuntimeSampler {
  stop(): void;
}

const NS_PER_MS = 1e6;

export function startRuntimeSampler(options: RuntimeSamplerOptions): RuntimeSampler {
  const { metrics, stores } = options;
  const intervalMs = options.intervalMs ?? 10_000;
  const histogram = monitorEventLoopDelay({ resolution: 20 });
  histogram.enable();
  const inFlight = new Set<StoreName>();

  const ping = (name: StoreName, fn: () => Promise<void>): void => {
    if (inFlight.has(name)) return;
    inFlight.add(name);
    const started = performance.now();
    fn().then(
      () => metrics.storeLatency(name, performance.now() - started, true),
      () => metrics.storeLatency(name, performance.now() - started, false),
    ).finally(() => inFlight.delete(name));
  };

  const timer = setInterval(() => {
    if (histogram.count > 0) {
      metrics.eventLoopLag(
        histogram.percentile(50) / NS_PER_MS,
        histogram.percentile(99) / NS_PER_MS,
        histogram.max / NS_PER_MS,
      );
    }
    histogram.reset();
    for (const [name, fn] of Object.entries(stores) as [StoreName, (() => Promise<void>) | undefined][]) {
      if (fn !== undefined) ping(name, fn);
    }
  }, intervalMs);
  timer.unref();

  return {
    stop() {
      clearInterval(timer);
      histogram.disable();
    },
  };
}
