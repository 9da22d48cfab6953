/** Tracing (OpenTelemetry, docs/observability.md): start-up, spans, propagation, store spans. */
export { startTracing, type Tracing, type TracingOptions } from './provider.js';
export { tracingRequested } from './settings.js';
export { traceStores } from './store-spans.js';
export { activeTraceparent, contextFrom, traceparentOf } from './propagation.js';
export * from './spans.js';
