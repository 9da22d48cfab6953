/**
 * The OpenAPI document: valid OpenAPI 3.1 (checked by a real validator), and in step with the
 * routes the server registers, both ways, so a route cannot be added or changed without the
 * document following.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import { ErrorCode, ErrorStatus } from '../../src/domain/errors.js';
import * as errors from '../../src/domain/errors.js';
import { openApiPath } from '../../src/http/openapi/document.js';
import { ErrorExtras } from '../../src/schemas/responses/errors.js';
import { declaredDocument, declaredRoutes } from '../../scripts/openapi-document.js';

type Operation = { responses: Record<string, unknown>; requestBody?: unknown; security?: unknown[] };
const WIRE = { get: 'get', post: 'post', put: 'put', patch: 'patch', del: 'delete' } as const;

t.test('the document is valid OpenAPI 3.1', async (t) => {
  const validator = new Validator();
  const result = await validator.validate(await declaredDocument());
  t.same(result.errors ?? [], [], 'no validation errors');
  t.equal(result.valid, true);
  t.equal(validator.version, '3.1');
});

t.test('every registered route is in the document, and nothing else is', async (t) => {
  const doc = (await declaredDocument()) as { paths: Record<string, Record<string, Operation>> };
  const registered = new Set(declaredRoutes().filter((r) => r.doc?.hidden !== true).map((r) => `${WIRE[r.method]} ${openApiPath(r.path)}`));
  const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)));
  t.same([...registered].filter((r) => !documented.has(r)), [], 'registered but not documented');
  t.same([...documented].filter((d) => !registered.has(d)), [], 'documented but not registered');
  t.ok(registered.size >= 25, `${registered.size} operations`);
});

t.test('every operation documents its success response and the errors it can answer with', async (t) => {
  const routes = declaredRoutes().filter((r) => r.doc?.hidden !== true);
  for (const route of routes) {
    t.ok(route.doc !== undefined, `${route.method} ${route.path} declares doc (summary and responses)`);
  }
  const doc = (await declaredDocument()) as { paths: Record<string, Record<string, Operation>> };
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const statuses = Object.keys(op.responses);
      t.ok(statuses.some((s) => s.startsWith('2')), `${method} ${path} has a 2xx response`);
      t.ok(statuses.includes('500'), `${method} ${path} lists 500`);
      if (op.requestBody !== undefined) t.ok(statuses.includes('400'), `${method} ${path} with a body lists 400`);
      if ((op.security ?? []).length > 0) t.ok(statuses.includes('401'), `${method} ${path} with auth lists 401`);
    }
  }
});

t.test('both auth schemes, the SSE stream events and the webhook payloads are described', async (t) => {
  const doc = (await declaredDocument()) as {
    paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: { oneOf: Array<{ properties: { event: { const: string } } }> } }> }> }>>;
    webhooks: Record<string, unknown>;
    components: { securitySchemes: Record<string, unknown> };
  };
  t.same(Object.keys(doc.components.securitySchemes).sort(), ['apiKey', 'apiKeyHeader', 'operatorToken']);
  const stream = doc.paths['/api/v1/workflows/execute/{id}/stream']!.get!.responses['200']!.content!['text/event-stream']!;
  t.same(stream.schema.oneOf.map((m) => m.properties.event.const).sort(), ['approval_request', 'approval_resolved', 'chunk', 'done', 'error', 'tool_executing', 'tool_result']);
  t.same(Object.keys(doc.webhooks).sort(), ['execution.cancelled', 'execution.completed', 'execution.failed', 'execution.started']);
});

t.test('every error code has a documented body, and its documented status is the one it is sent with', async (t) => {
  t.same(Object.keys(ErrorExtras).sort(), Object.values(ErrorCode).sort());
  t.same(Object.keys(ErrorStatus).sort(), Object.values(ErrorCode).sort());
  // Build every catalogue error with placeholder arguments and compare its status with the table.
  for (const [name, factory] of Object.entries(errors)) {
    if (typeof factory !== 'function' || name === 'ApiError') continue;
    const error = (factory as (...args: unknown[]) => unknown)('x', ['x'], 1, new Date(0), 1, {});
    if (!(error instanceof errors.ApiError)) continue;
    t.equal(error.status, ErrorStatus[error.code], `${name}() sends ${error.code} with ${ErrorStatus[error.code]}`);
  }
});
