/**
 * Store calls on the request path as client spans (`store <port>.<method>`): each store port is
 * wrapped once at start-up, and a call makes a span only when the async context holds a live
 * span (a traced request). With tracing off the stores are returned unwrapped: no cost at all.
 */
import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import { ATTR_DB_OPERATION_NAME, ATTR_DB_SYSTEM_NAME, ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import type { Coordination } from '../../ports/coordination.js';
import type { DurableStores } from '../../ports/durable.js';
import { activeTracer } from './state.js';

const DURABLE_PORTS = ['accounts', 'apiKeys', 'usage', 'webhooks', 'agents', 'executions', 'idempotency', 'workflows', 'workflowRuns', 'approvals'] as const;

/** `durable` and `coordination` with spans around their calls, or as given when tracing is off. */
export function traceStores(
  stores: { readonly durable: DurableStores; readonly coordination: Coordination },
  systems: { readonly durable: string; readonly coordination: string },
): { readonly durable: DurableStores; readonly coordination: Coordination } {
  if (activeTracer() === null) return stores;
  const durable = Object.create(stores.durable) as Record<string, unknown>;
  for (const port of DURABLE_PORTS) durable[port] = traced(stores.durable[port], port, systems.durable);
  return { durable: durable as unknown as DurableStores, coordination: traced(stores.coordination, 'coordination', systems.coordination) };
}

function traced<T extends object>(target: T, port: string, system: string): T {
  const wrappers = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(obj, key) {
      const value: unknown = Reflect.get(obj, key, obj);
      if (typeof value !== 'function') return value;
      let wrapper = wrappers.get(key);
      if (wrapper === undefined) {
        wrapper = wrap(value as (...args: unknown[]) => unknown, obj, `${port}.${String(key)}`, system);
        wrappers.set(key, wrapper);
      }
      return wrapper;
    },
  });
}

function wrap(fn: (...args: unknown[]) => unknown, self: object, operation: string, system: string): (...args: unknown[]) => unknown {
  const name = `store ${operation}`;
  return function storeCall(...args: unknown[]): unknown {
    const tracer = activeTracer();
    const parent = trace.getSpan(context.active());
    // Only calls made for a live traced request; background work (timers, actors) is not traced here.
    if (tracer === null || parent === undefined || !parent.isRecording()) return fn.apply(self, args);
    const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes: { [ATTR_DB_SYSTEM_NAME]: system, [ATTR_DB_OPERATION_NAME]: operation } });
    let result: unknown;
    try {
      result = fn.apply(self, args);
    } catch (error) {
      fail(span, error);
      span.end();
      throw error;
    }
    if (result instanceof Promise) {
      return result.then(
        (value: unknown) => {
          span.end();
          return value;
        },
        (error: unknown) => {
          fail(span, error);
          span.end();
          throw error;
        },
      );
    }
    span.end();
    return result;
  };
}

function fail(span: import('@opentelemetry/api').Span, error: unknown): void {
  const code = typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
    ? (error as { code: string }).code
    : error instanceof Error ? error.name : 'STORE_ERROR';
  span.setAttribute(ATTR_ERROR_TYPE, code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
