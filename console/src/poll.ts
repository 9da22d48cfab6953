/** Re-reads an API resource every `everyMs` while the view is shown (the console's "live"). */
import { useEffect, useState } from 'preact/hooks';
import { describeError } from './api';

export interface Polled<T> {
  readonly data: T | null;
  readonly error: string | null;
  readonly refresh: () => void;
}

export function usePoll<T>(read: () => Promise<T>, everyMs: number, deps: readonly unknown[]): Polled<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const load = async (): Promise<void> => {
      try {
        const value = await read();
        if (!stopped) {
          setData(value);
          setError(null);
        }
      } catch (e) {
        if (!stopped) setError(describeError(e));
      }
      if (!stopped) timer = setTimeout(() => void load(), everyMs);
    };
    void load();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [...deps, tick]);
  return { data, error, refresh: () => setTick((n) => n + 1) };
}
