/**
 * GET /openapi.json (the document, built once from every declared route, this one included) and
 * the browsable API reference at /docs: Scalar's standalone bundle served by Baton itself, so no
 * CDN is involved, under a Content-Security-Policy that lets the page load nothing but its own
 * script and the document. All public: the document describes the API, it holds no data.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { json, route, type RawReply, type Route } from '../route.js';
import { openApiDocument } from '../openapi/document.js';
import { Type } from '@sinclair/typebox';

const gzipAsync = promisify(gzip);

export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Scalar sets styles at run time; no script can be injected through a style.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_HEADERS = {
  'Content-Security-Policy': DOCS_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

/** The page: configuration in a JSON data block (not executed), the renderer from /docs/scalar.js. */
// Scalar's hosted extras (AI agent, MCP generator) are off: the page talks to this server only.
const SCALAR_CONFIG = { withDefaultFonts: false, hideClientButton: true, showDeveloperTools: 'never', telemetry: false, agent: { disabled: true }, mcp: { disabled: true } };
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Baton API reference</title>
</head>
<body>
<script id="api-reference" type="application/json" data-url="/openapi.json" data-configuration="${JSON.stringify(SCALAR_CONFIG).replaceAll('"', '&quot;')}"></script>
<script src="/docs/scalar.js"></script>
</body>
</html>
`;

function scalarBundlePath(): string {
  // The package's main entry is dist/index.js; the standalone browser bundle sits beside it.
  const main = createRequire(import.meta.url).resolve('@scalar/api-reference');
  return path.join(path.dirname(main), 'browser', 'standalone.js');
}

/** Read and compressed on first request only: most processes never serve the reference. */
let bundle: Promise<{ plain: Buffer; gzipped: Buffer }> | null = null;
function loadBundle(): Promise<{ plain: Buffer; gzipped: Buffer }> {
  bundle ??= readFile(scalarBundlePath()).then(async (plain) => ({ plain, gzipped: await gzipAsync(plain) }));
  bundle.catch(() => (bundle = null));
  return bundle;
}

/** `routes` is the complete list the server registers; it must include these routes too. */
export function apiReferenceRoutes(routes: () => readonly Route[], version: string): Route[] {
  let document: string | null = null;
  return [
    route({
      method: 'get',
      path: '/openapi.json',
      access: { kind: 'public' },
      doc: { summary: 'This OpenAPI 3.1 document', tag: 'meta', responses: { 200: Type.Object({ openapi: Type.String() }, { additionalProperties: true }) } },
      handle: (): RawReply => {
        document ??= JSON.stringify(openApiDocument(routes(), { version }));
        return { kind: 'raw', status: 200, contentType: 'application/json; charset=utf-8', body: document, headers: { 'Cache-Control': 'no-cache', 'Access-Control-Allow-Origin': '*' } };
      },
    }),
    route({
      method: 'get',
      path: '/docs',
      access: { kind: 'public' },
      doc: { summary: 'API reference page', responses: {}, hidden: true },
      handle: (): RawReply => ({ kind: 'raw', status: 200, contentType: 'text/html; charset=utf-8', body: PAGE, headers: PAGE_HEADERS }),
    }),
    route({
      method: 'get',
      path: '/docs/scalar.js',
      access: { kind: 'public' },
      headers: ['accept-encoding'],
      doc: { summary: 'API reference renderer', responses: {}, hidden: true },
      handle: async (ctx): Promise<RawReply> => {
        const { plain, gzipped } = await loadBundle();
        const gzipOk = /\bgzip\b/.test(ctx.headers['accept-encoding'] ?? '');
        return {
          kind: 'raw',
          status: 200,
          contentType: 'text/javascript; charset=utf-8',
          body: gzipOk ? gzipped : plain,
          headers: { ...(gzipOk ? { 'Content-Encoding': 'gzip' } : {}), Vary: 'Accept-Encoding', 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' },
        };
      },
    }),
  ];
}
