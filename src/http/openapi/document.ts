/**
 * The OpenAPI 3.1 document, built from the route declarations (src/routes/) and their TypeBox
 * schemas: a route added to `allRoutes` appears here with its method, path, parameters, auth,
 * request body and pipeline errors; its `doc` adds the summary, responses, query and own errors.
 * Served by GET /openapi.json; `npm run client:generate` types the client from it.
 */
import { ErrorCatalogue, ErrorStatus, type ErrorCode } from '../../domain/errors.js';
import type { Route } from '../route.js';
import { errorBody } from '../../schemas/responses/errors.js';
import { WebhookHeaders, WebhookPayloads } from '../../schemas/responses/webhooks.js';
import { SchemaRegistry, type JsonSchema } from './components.js';
import { errorCodesOf } from './errors.js';

const WIRE_METHOD = { get: 'get', post: 'post', put: 'put', patch: 'patch', del: 'delete' } as const;

/** Request headers routes may declare, with what they mean. */
const HEADER_DOCS: Readonly<Record<string, string>> = {
  'x-idempotency-key': 'Retrying with the same key within 24 hours returns the first response and creates nothing new (1 to 255 printable ASCII characters)',
  'last-event-id': 'Resume after this event id (what EventSource sends on reconnect)',
};

const SECURITY_SCHEMES = {
  apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (mk_ and 32 hex characters) as `Authorization: Bearer <key>`' },
  apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'The same API key as `x-api-key: <key>`' },
  operatorToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The operator token (BATON_ADMIN_TOKEN), as `Authorization: Bearer <token>` or `x-api-key: <token>`',
  },
} as const;

export interface DocumentOptions {
  readonly version: string;
}

export function openApiDocument(routes: readonly Route[], options: DocumentOptions): Record<string, unknown> {
  const registry = new SchemaRegistry();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    if (route.doc?.hidden === true) continue;
    const path = openApiPath(route.path);
    (paths[path] ??= {})[WIRE_METHOD[route.method]] = operation(route, registry);
  }
  const webhooks: Record<string, unknown> = {};
  for (const [event, payload] of Object.entries(WebhookPayloads)) webhooks[event] = { post: webhookOperation(event, payload, registry) };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Baton',
      version: options.version,
      description:
        'Selects and runs registered HTTP agents, runs workflows with streamed events, and holds high-risk tool calls for approval. Error bodies are `{ error, message, requestId, ...extra }`; every code is listed under the statuses it is sent with.',
    },
    tags: [...new Set(Object.values(paths).flatMap((ops) => Object.values(ops).map((op) => (op as { tags: string[] }).tags[0]!)))].map((name) => ({ name })),
    paths,
    webhooks,
    components: { schemas: registry.schemas, securitySchemes: SECURITY_SCHEMES, headers: RESPONSE_HEADERS },
  };
}

/** `/v1/agents/:id` → `/v1/agents/{id}`. */
export function openApiPath(pattern: string): string {
  return pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function operationId(route: Route): string {
  const words = route.path
    .split('/')
    .filter((part) => part !== '' && part !== 'api' && part !== 'v1')
    .map((part) => (part.startsWith(':') ? `by-${part.slice(1)}` : part))
    .join('-')
    .split(/[-_]/);
  return WIRE_METHOD[route.method] + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');
}

function tagOf(route: Route): string {
  if (route.doc?.tag !== undefined) return route.doc.tag;
  const first = route.path.replace(/^\/(api\/)?v1\//, '/').split('/')[1] ?? '';
  return first === 'execute' ? 'workflows' : first;
}

function operation(route: Route, registry: SchemaRegistry): Record<string, unknown> {
  const doc = route.doc;
  const op: Record<string, unknown> = {
    operationId: operationId(route),
    summary: doc?.summary ?? `${WIRE_METHOD[route.method].toUpperCase()} ${route.path}`,
    ...(doc?.description !== undefined ? { description: doc.description } : {}),
    tags: [tagOf(route)],
    security: security(route),
  };
  const access = accessNote(route);
  if (access !== null) op.description = doc?.description === undefined ? access : `${doc.description}\n\n${access}`;
  const parameters = [...pathParameters(route), ...queryParameters(route, registry), ...headerParameters(route)];
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body !== undefined) {
    op.requestBody = {
      required: !acceptsNoBody(route),
      content: { 'application/json': { schema: registry.use(route.body.schema) } },
    };
  }
  op.responses = { ...successResponses(route, registry), ...errorResponses(errorCodesOf(route), registry) };
  return op;
}

function security(route: Route): Array<Record<string, string[]>> {
  const keys: Array<Record<string, string[]>> = [{ apiKey: [] }, { apiKeyHeader: [] }];
  switch (route.access.kind) {
    case 'public':
      return [];
    case 'operator':
      return [{ operatorToken: [] }];
    case 'key':
      return keys;
    case 'optional-key':
      // Anonymous callers get the public part; a key adds what it may see.
      return [{}, ...keys];
    case 'permission':
      return route.access.operator === true ? [...keys, { operatorToken: [] }] : keys;
  }
}

function accessNote(route: Route): string | null {
  const access = route.access;
  switch (access.kind) {
    case 'public':
      return null;
    case 'operator':
      return 'Operator token only.';
    case 'key':
      return 'Any valid API key.';
    case 'optional-key':
      return 'No key needed; with a valid API key the answer includes what that key may see.';
    case 'permission':
      return `Permission: \`${access.permission}\`${access.operator === true ? ' (or the operator token)' : ''}.`;
  }
}

/** A validator that accepts a missing body makes the body optional (e.g. approve without a reason). */
function acceptsNoBody(route: Route): boolean {
  try {
    route.body!.parse(undefined);
    return true;
  } catch {
    return false;
  }
}

function pathParameters(route: Route): unknown[] {
  return [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
}

function queryParameters(route: Route, registry: SchemaRegistry): unknown[] {
  const query = route.doc?.query;
  if (query === undefined) return [];
  const schema = registry.use(query) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const { description, ...rest } = property;
    return { name, in: 'query', required: schema.required?.includes(name) ?? false, ...(description !== undefined ? { description } : {}), schema: rest };
  });
}

function headerParameters(route: Route): unknown[] {
  return (route.headers ?? []).map((name) => ({
    name,
    in: 'header',
    required: false,
    ...(HEADER_DOCS[name] !== undefined ? { description: HEADER_DOCS[name] } : {}),
    schema: { type: 'string' },
  }));
}

const RESPONSE_HEADERS = {
  'X-Request-Id': { description: 'The request id (yours if you sent a valid X-Request-Id)', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests allowed in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Unix seconds when the window resets', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
};

function headerRefs(names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

function successHeaders(route: Route): Record<string, unknown> {
  const keyed = route.access.kind === 'key' || route.access.kind === 'permission';
  return headerRefs(keyed ? ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] : ['X-Request-Id']);
}

function successResponses(route: Route, registry: SchemaRegistry): Record<string, unknown> {
  const doc = route.doc;
  if (doc === undefined) return { default: { description: 'Not documented yet' } };
  const out: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(doc.responses)) {
    out[status] = {
      description: schema === null ? 'No content' : 'OK',
      headers: successHeaders(route),
      ...(schema === null ? {} : { content: { 'application/json': { schema: registry.use(schema) } } }),
    };
  }
  if (doc.events !== undefined) {
    out['200'] = {
      description:
        'Server-Sent Events: each message is `id: <n>`, `event: <name>`, `data: <JSON>`. Reconnect with Last-Event-ID (or ?lastEventId=) to resume after the last id seen. Lines starting with `:` are heartbeats.',
      headers: successHeaders(route),
      content: { 'text/event-stream': { schema: { oneOf: Object.entries(doc.events).map(([name, data]) => sseMessage(name, data, registry)) } } },
    };
  }
  return out;
}

function sseMessage(name: string, data: JsonSchema, registry: SchemaRegistry): JsonSchema {
  return {
    type: 'object',
    title: `${name} message`,
    properties: { id: { type: 'string' }, event: { const: name }, data: registry.use(data) },
    required: ['id', 'event', 'data'],
  };
}

function errorResponses(codes: readonly ErrorCode[], registry: SchemaRegistry): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ErrorStatus[code], [...(byStatus.get(ErrorStatus[code]) ?? []), code]);
  const out: Record<string, unknown> = {};
  for (const status of [...byStatus.keys()].sort()) {
    const list = byStatus.get(status)!.sort();
    const refs = list.map((code) => registry.use(errorBody(code)));
    const retry = list.some((code) => ErrorCatalogue[code].retryAfter);
    out[String(status)] = {
      description: list.join(', '),
      headers: headerRefs(retry ? ['X-Request-Id', 'Retry-After'] : ['X-Request-Id']),
      content: { 'application/json': { schema: refs.length === 1 ? refs[0] : { oneOf: refs } } },
    };
  }
  return out;
}

function webhookOperation(event: string, payload: JsonSchema, registry: SchemaRegistry): Record<string, unknown> {
  return {
    operationId: `webhook${event.split('.').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')}`,
    summary: `${event}, POSTed to the request's webhook.url`,
    description: 'Verify X-Service-Signature over the raw body before trusting it (verifyWebhook in the client, or src/logic/webhooks/verify.ts); answer 401 when it fails.',
    parameters: Object.entries(WebhookHeaders).map(([name, description]) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } })),
    requestBody: { required: true, content: { 'application/json': { schema: registry.use(payload) } } },
    responses: { '2XX': { description: 'Received. Any other answer, or none in time, is retried with backoff (docs/webhooks.md)' } },
  };
}
