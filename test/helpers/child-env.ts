/**
 * Environment for a process a test spawns (a Baton server, the example agent) that must not
 * record coverage. tap's processinfo hooks every child and, unless told otherwise, writes its
 * V8 coverage too. Those children load the same .ts files through tsx, whose output differs from
 * the test processes' TypeScript output; the report merges both under one file name with
 * whichever source map it read last, so most files came out as a single statement and the
 * report's file set changed from run to run.
 */
export function uninstrumentedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  delete out.NODE_V8_COVERAGE;
  out._TAPJS_PROCESSINFO_COVERAGE_ = '0';
  return out;
}
