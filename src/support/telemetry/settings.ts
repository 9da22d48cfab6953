/**
 * When tracing is on (read once, by src/support/config.ts): only the standard OTEL_* variables decide (the SDK and the exporter read
 * the rest themselves: OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER(_ARG),
 * OTEL_EXPORTER_OTLP_HEADERS, timeouts). With none set Baton never loads the SDK.
 */
type Env = Readonly<Record<string, string | undefined>>;

function set(env: Env, name: string): boolean {
  const raw = env[name];
  return raw !== undefined && raw.trim() !== '';
}

/** True when an OTLP destination is configured and tracing is not disabled. */
export function tracingRequested(env: Env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporter = (env.OTEL_TRACES_EXPORTER ?? '').trim().toLowerCase();
  if (exporter === 'none') return false;
  // `otlp` alone means the default endpoint (http://localhost:4318), as in the other OTel SDKs.
  return set(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') || set(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') || exporter === 'otlp';
}
