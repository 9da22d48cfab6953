/**
 * Starts the OpenTelemetry SDK for this worker when config says tracing is on (settings.ts):
 * a BasicTracerProvider (sampler from OTEL_TRACES_SAMPLER / _ARG), a batch processor, the OTLP/HTTP
 * JSON exporter (endpoint and headers from OTEL_EXPORTER_OTLP_*), the AsyncLocalStorage context
 * manager (so store calls find their request's span) and the W3C trace-context propagator.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { setActiveTracer } from './state.js';

export interface Tracing {
  readonly enabled: boolean;
  /** Exports what is still buffered (bounded by the exporter's timeout) and stops. */
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /** `Config.tracing`: the OTEL_* variables ask for it. */
  readonly enabled: boolean;
  readonly version: string;
  /** Resource attribute `baton.worker`: which worker process sent the span. */
  readonly worker?: string;
}

const OFF: Tracing = { enabled: false, shutdown: async () => undefined };

/** Starts tracing if configured; otherwise returns a Tracing that does nothing. */
export function startTracing(options: TracingOptions): Tracing {
  if (!options.enabled) return OFF;
  const resource = defaultResource()
    // Baton's name unless OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES say otherwise.
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'baton', [ATTR_SERVICE_VERSION]: options.version, 'baton.worker': options.worker ?? '0' }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  setActiveTracer(provider.getTracer('baton', options.version));
  return {
    enabled: true,
    async shutdown() {
      setActiveTracer(null);
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
