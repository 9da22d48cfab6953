/**
 * W3C trace context as plain strings: what actor messages carry between a request and the runs it
 * starts (messages stay plain data), and what goes out as the `traceparent` header.
 */
import { ROOT_CONTEXT, context, propagation, trace, type Context, type Span } from '@opentelemetry/api';

/** Header values of one carrier; only `traceparent` / `tracestate` are read. */
type Carrier = Record<string, string>;

const getter = {
  keys: (carrier: Carrier) => Object.keys(carrier),
  get: (carrier: Carrier, key: string) => carrier[key],
};

/** The context a remote `traceparent` (and optional `tracestate`) describe; ROOT when absent or malformed. */
export function contextFrom(traceparent: string | undefined, tracestate?: string): Context {
  if (traceparent === undefined || traceparent === '') return ROOT_CONTEXT;
  const carrier: Carrier = { traceparent };
  if (tracestate !== undefined && tracestate !== '') carrier.tracestate = tracestate;
  return propagation.extract(ROOT_CONTEXT, carrier, getter);
}

/** The `traceparent` naming `span` as parent, or undefined for no span. */
export function traceparentOf(span: Span | null | undefined): string | undefined {
  if (span === null || span === undefined) return undefined;
  const carrier: Carrier = {};
  propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
  return carrier.traceparent;
}

/** The `traceparent` of the span active in the current async context (the request's), if any. */
export function activeTraceparent(): string | undefined {
  return traceparentOf(trace.getSpan(context.active()));
}
