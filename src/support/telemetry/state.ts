/**
 * The worker's one tracer, or null while tracing is off. Module state on purpose: it mirrors
 * OpenTelemetry's own global provider, and lets hooks in the request path and in actors be a
 * single call that returns at once (no span, no context, no allocation) when tracing is off.
 */
import type { Tracer } from '@opentelemetry/api';

let active: Tracer | null = null;

export function activeTracer(): Tracer | null {
  return active;
}

export function setActiveTracer(tracer: Tracer | null): void {
  active = tracer;
}
