import t from 'tap';
import { tracingRequested } from '../../src/support/telemetry/settings.js';
import { currentTraceparent, startRequestSpan, startRunSpan, traceStores } from '../../src/support/telemetry/index.js';

t.test('tracing is off with no OTEL variables, and on with an OTLP endpoint', async (t) => {
  t.equal(tracingRequested({}), false);
  t.equal(tracingRequested({ OTEL_SERVICE_NAME: 'baton' }), false, 'a name alone exports nowhere');
  t.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }), true);
  t.equal(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }), true);
  t.equal(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' }), true, 'the default endpoint');
  t.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }), false);
  t.equal(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }), false);
});

t.test('while tracing is off, hooks make nothing and stores are returned as they are', async (t) => {
  const req = { getHeader: () => t.fail('headers are not read while tracing is off') as unknown as string };
  t.equal(startRequestSpan('GET', '/x', '/x', req), null);
  t.equal(startRunSpan('orchestration', { id: 'exec_1', accountId: 'acc_1' }, undefined), null);
  t.equal(currentTraceparent(), undefined);
  const stores = { durable: {} as never, coordination: {} as never };
  t.equal(traceStores(stores, { durable: 'pglite', coordination: 'memory' }), stores);
});
