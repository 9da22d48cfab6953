/**
 * The OpenAPI document without starting the service: the route factories only capture their
 * services, so an inert stand-in (never called: no handler runs) is enough to read the
 * declarations. GET /openapi.json serves the same document from the running routes.
 *
 *   npm run docs:openapi            # prints it
 *   npm run docs:openapi -- out.json
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { allRoutes } from '../src/http/routes/index.js';
import type { Services } from '../src/services/index.js';
import { VERSION } from '../src/support/version.js';

const inert: unknown = new Proxy(() => undefined, {
  get: (_target, property) => (property === 'version' ? VERSION : inert),
  apply: () => inert,
});

export function declaredRoutes() {
  return allRoutes(inert as Services);
}

/** The document exactly as GET /openapi.json serves it. */
export async function declaredDocument(): Promise<Record<string, unknown>> {
  const route = declaredRoutes().find((r) => r.path === '/openapi.json')!;
  const reply = await route.handle({} as never);
  if (reply.kind !== 'raw') throw new Error('GET /openapi.json did not answer with the document');
  return JSON.parse(String(reply.body)) as Record<string, unknown>;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const text = `${JSON.stringify(await declaredDocument(), null, 2)}\n`;
  const out = process.argv[2];
  if (out === undefined) process.stdout.write(text);
  else writeFileSync(out, text);
}
