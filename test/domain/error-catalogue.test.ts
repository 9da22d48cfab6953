/**
 * The error catalogue (src/domain/errors.ts) is the only place a client-visible code is made, its
 * generated reference and client table are current, and its retryable flags reach clients.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import * as errors from '../../src/domain/errors.js';
import { AgentCallErrorCode, ErrorCatalogue, ErrorCode, RunErrorCode, agentCallErrorCode } from '../../src/domain/errors.js';
import { ErrorExtras } from '../../src/schemas/responses/errors.js';
import { BatonApiError } from '../../src/client/index.js';
import { clientCodesSource, CLIENT_CODES_FILE, errorsDocSource, ERRORS_DOC_FILE } from '../../scripts/errors-reference.js';
import { declaredDocument } from '../../scripts/openapi-document.js';
import { asset } from '../../src/support/paths.js';

/**
 * Upper-snake strings in src/ that are not codes a client sees, each with why. Environment
 * variables (BATON_*, OTEL_*) are recognised by their prefix.
 */
const NOT_CLIENT_CODES: Readonly<Record<string, string>> = {
  DATABASE_URL: 'environment variable',
  REDIS_URL: 'environment variable',
  ASK_TIMEOUT: 'actor kit error, handled inside the service',
  ASK_TARGET_STOPPED: 'actor kit error, handled inside the service',
  USAGE_FLUSH_FAILED: 'usage actor error, logged',
  STORE_DEADLINE_EXCEEDED: 'store port error; the client sees SERVICE_UNAVAILABLE',
  STORE_ERROR: 'span error.type of a store call (traces only)',
  TOOL_FAILED: 'span error.type of a tool call (traces only)',
  WEBHOOK_DELIVERY_FAILED: 'span error.type of a webhook delivery (traces only)',
  EVENT_STREAM_MAX_LEN: 'Lua script argument name',
  ERR_URL_NOT_ALLOWED: 'Node-style code of the outbound guard; the client sees URL_NOT_ALLOWED or AGENT_URL_NOT_ALLOWED',
  ERR_RESPONSE_TOO_LARGE: 'Node-style code of the outbound guard; the client sees AGENT_TOO_LARGE (or a tool error)',
  MAX_LISTED_TOOLS: 'a constant named in a comment',
  CONNECTION_CLOSED: 'postgres.js error code read to answer SERVICE_UNAVAILABLE',
  CONNECTION_DESTROYED: 'postgres.js error code read to answer SERVICE_UNAVAILABLE',
  CONNECTION_ENDED: 'postgres.js error code read to answer SERVICE_UNAVAILABLE',
  CONNECT_TIMEOUT: 'postgres.js error code read to answer SERVICE_UNAVAILABLE',
  EAI_AGAIN: 'DNS error code read to classify an agent call',
  EAI_FAIL: 'DNS error code read to classify an agent call',
  EAI_NONAME: 'DNS error code read to classify an agent call',
  UND_ERR: 'undici error code read to classify an agent call',
  UND_ERR_BODY_TIMEOUT: 'undici error code read to classify an agent call',
  UND_ERR_CLOSED: 'undici error code read to classify an agent call',
  UND_ERR_CONNECT_TIMEOUT: 'undici error code read to classify an agent call',
  UND_ERR_HEADERS_TIMEOUT: 'undici error code read to classify an agent call',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'undici error code read to classify an agent call',
  UND_ERR_SOCKET: 'undici error code read to classify an agent call',
  HPE_INVALID_CONSTANT: 'HTTP parser error code read to classify an agent call',
  HPE_INVALID_HEADER_TOKEN: 'HTTP parser error code read to classify an agent call',
  HPE_INVALID_STATUS: 'HTTP parser error code read to classify an agent call',
  HPE_INVALID_VERSION: 'HTTP parser error code read to classify an agent call',
};

/** Generated or catalogue files, where codes are expected. */
const SKIP = new Set(['src/domain/errors.ts', 'src/client/schema.ts', 'src/client/error-codes.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

const root = asset();
const files = sourceFiles(path.join(root, 'src'))
  .map((full) => ({ file: path.relative(root, full).split(path.sep).join('/'), text: readFileSync(full, 'utf8') }))
  .filter(({ file }) => !SKIP.has(file));

t.test('every upper-snake string literal in src/ is a catalogue code or a known non-client name', async (t) => {
  const unknown: string[] = [];
  for (const { file, text } of files) {
    for (const match of text.matchAll(/['"`]([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)['"`]/g)) {
      const name = match[1]!;
      if (Object.hasOwn(ErrorCatalogue, name) || Object.hasOwn(NOT_CLIENT_CODES, name) || /^(BATON|OTEL)_/.test(name)) continue;
      unknown.push(`${file}: ${name}`);
    }
  }
  t.same(unknown, [], 'add each client-visible code to src/domain/errors.ts (or, if no client sees it, to NOT_CLIENT_CODES with why)');
});

t.test('no code is assembled from pieces at run time, so the catalogue lists them all', async (t) => {
  const built = files.filter(({ file, text }) => file !== 'src/client/errors.ts' && /`[A-Z][A-Z0-9]*_\$\{/.test(text)).map(({ file }) => file);
  t.same(built, []);
});

t.test('every failed agent call has a catalogue code seen where it is reported', async (t) => {
  for (const kind of Object.keys(AgentCallErrorCode) as (keyof typeof AgentCallErrorCode)[]) {
    t.ok(ErrorCatalogue[agentCallErrorCode(kind)].seenIn.includes('agent'), `${kind} in an execution's details`);
    t.ok(ErrorCatalogue[agentCallErrorCode(kind, 'workflow')].seenIn.includes(kind === 'stopped' ? 'workflow' : 'agent'), `${kind} in a workflow error`);
  }
  t.equal(agentCallErrorCode('stopped', 'workflow'), ErrorCode.AGENT_NOT_FOUND, 'a workflow names a deleted agent as before');
  t.equal(agentCallErrorCode('timeout'), 'AGENT_TIMEOUT');
});

t.test('each entry has a status exactly when a client sees it over HTTP, a meaning and a fix', async (t) => {
  for (const [code, entry] of Object.entries(ErrorCatalogue)) {
    t.equal(entry.status !== null, entry.seenIn.includes('http'), `${code}: status`);
    t.equal(entry.status !== null, Object.hasOwn(ErrorCode, code), `${code}: an HTTP code is in ErrorCode`);
    t.ok(entry.meaning.length > 0 && !entry.meaning.includes('\n') && entry.fix.length > 0 && !entry.fix.includes('\n'), `${code}: one-line meaning and fix`);
    if (entry.retryAfter) t.ok(entry.retryable, `${code}: sent with Retry-After, so retryable`);
  }
  t.same(Object.keys(RunErrorCode).filter((code) => Object.hasOwn(ErrorCode, code)), [], 'a run code is not also an HTTP code');
});

t.test('a code sent with Retry-After has the header and a retryAfter field, and no other code has them', async (t) => {
  for (const [name, factory] of Object.entries(errors)) {
    if (typeof factory !== 'function' || name === 'ApiError' || name === 'isRetryable' || name === 'agentCallErrorCode') continue;
    const error = (factory as (...args: unknown[]) => unknown)('x', ['x'], 1, new Date(0), 1, {});
    if (!(error instanceof errors.ApiError)) continue;
    const entry = ErrorCatalogue[error.code];
    t.equal('Retry-After' in error.headers, entry.retryAfter, `${name}() Retry-After header`);
    t.equal('retryAfter' in ErrorExtras[error.code], entry.retryAfter, `${error.code} documents retryAfter`);
    t.equal(error.retryable, entry.retryable, `${name}() carries the catalogue's retryable`);
  }
});

t.test('docs/errors.md and src/client/error-codes.ts are what `npm run docs:errors` writes now', async (t) => {
  t.ok(readFileSync(ERRORS_DOC_FILE, 'utf8') === errorsDocSource(), 'docs/errors.md is out of date: run `npm run docs:errors`');
  t.ok(readFileSync(CLIENT_CODES_FILE, 'utf8') === clientCodesSource(), 'src/client/error-codes.ts is out of date: run `npm run docs:errors`');
  for (const code of Object.keys(ErrorCatalogue)) t.match(readFileSync(ERRORS_DOC_FILE, 'utf8'), `\`${code}\``, `${code} documented`);
});

t.test('the OpenAPI document states each error body\'s meaning and retryable flag from the catalogue', async (t) => {
  const doc = (await declaredDocument()) as { components: { schemas: Record<string, { 'x-retryable'?: boolean; description?: string }> } };
  let seen = 0;
  for (const code of Object.values(ErrorCode)) {
    const schema = doc.components.schemas[`${code}_Error`];
    if (schema === undefined) continue;
    seen += 1;
    t.equal(schema['x-retryable'], ErrorCatalogue[code].retryable, `${code} x-retryable`);
    t.ok(schema.description?.startsWith(ErrorCatalogue[code].meaning), `${code} description`);
  }
  // NOT_FOUND and METHOD_NOT_ALLOWED answer paths no route declares, so no operation lists them.
  t.ok(seen > 0, `${seen} error bodies checked`);
});

t.test('the typed client reports whether an error body is worth retrying, from the catalogue', async (t) => {
  const limited = new BatonApiError(429, { error: 'RATE_LIMIT_EXCEEDED', message: 'slow down', retryAfter: 3 });
  t.equal(limited.retryable, true);
  const missing = new BatonApiError(404, { error: 'EXECUTION_NOT_FOUND', message: 'no' });
  t.equal(missing.retryable, false);
  const bug = new BatonApiError(500, { error: 'INTERNAL_ERROR', message: 'bug' });
  t.equal(bug.retryable, true);
  t.equal(new BatonApiError(502, null).retryable, false, "a proxy's bare 502 is not Baton's to judge");
  t.equal(new BatonApiError(503, null, '2').retryable, true, 'unless it came with Retry-After');
});
