/**
 * How a route is declared: one object per route, with its method, path pattern, who may call it
 * (one declaration: public, any key, a permission, or the operator token), an optional body
 * validator, and a handler that returns a reply. The pipeline does everything else.
 */
import type { Access } from '../services/auth/access.js';
import type { TSchema } from '@sinclair/typebox';
import type { Permission } from '../services/auth/permissions.js';
import type { Principal } from '../services/auth/principal.js';
import type { ErrorCode } from '../domain/errors.js';
import type { Validator } from '../schemas/validation.js';
import type { SseSink } from '../ports/event-sink.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'del';


export interface RequestContext<Body = unknown> {
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** Lower-case header names; only those the route asked for plus the pipeline's own. */
  readonly headers: Readonly<Record<string, string>>;
  readonly clientAddress: string;
  readonly principal: Principal;
  readonly body: Body;
  /** Aborted when the client goes away; pass it to work that should stop with the request. */
  readonly signal: AbortSignal;
}

export interface JsonReply {
  readonly kind: 'json';
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface EmptyReply {
  readonly kind: 'empty';
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Bytes of a given type as they are (the console's static files); never JSON-wrapped. */
export interface BytesReply {
  readonly kind: 'bytes';
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A long-lived event stream; the route owns the sink until it calls `end()`. */
export interface StreamReply {
  readonly kind: 'stream';
  readonly headers?: Readonly<Record<string, string>>;
  start(sink: SseSink): void;
}

/** Bytes with their own content type (the API reference page and its script). */
export interface RawReply {
  readonly kind: 'raw';
  readonly status: number;
  readonly contentType: string;
  readonly body: string | Uint8Array;
  readonly headers?: Readonly<Record<string, string>>;
}

export type Reply = JsonReply | EmptyReply | StreamReply | RawReply;

/**
 * What the OpenAPI document says about a route beyond what the declaration already shows (method,
 * path, access, body schema, headers): see src/openapi/. Errors the pipeline raises for every
 * route of its kind (auth, body, rate limit, 5xx) are added there; list only the route's own.
 */
export interface RouteDoc {
  readonly summary: string;
  readonly description?: string;
  /** Groups operations in the API reference; defaults to the path's resource. */
  readonly tag?: string;
  /** Query parameters, as a TypeBox object of optional string-valued fields. */
  readonly query?: TSchema;
  /** Success responses by status: a JSON body schema, or null for an empty body. */
  readonly responses: Readonly<Record<number, TSchema | null>>;
  /** `text/event-stream` responses: each event name with the schema of its `data`. */
  readonly events?: Readonly<Record<string, TSchema>>;
  /** Codes from src/domain/errors.ts the handler itself can answer with. */
  readonly errors?: readonly ErrorCode[];
  /** Set on routes outside the JSON API (e.g. the API reference page): left out of the document. */
  readonly hidden?: boolean;
}

export interface Route<Body = unknown> {
  readonly method: HttpMethod;
  /** uWS / find-my-way pattern, e.g. `/v1/api-keys/:id`. */
  readonly path: string;
  readonly access: Access;
  readonly body?: Validator<Body>;
  /** Extra request headers the handler reads (lower case). */
  readonly headers?: readonly string[];
  /** The route's entry in GET /openapi.json. */
  readonly doc?: RouteDoc;
  handle(ctx: RequestContext<Body>): Promise<Reply> | Reply;
}

export function json(status: number, body: unknown, headers?: Readonly<Record<string, string>>): JsonReply {
  return headers === undefined ? { kind: 'json', status, body } : { kind: 'json', status, body, headers };
}

/** Declares a route with its body type inferred from the validator. */
export function route<Body = undefined>(definition: Route<Body>): Route<unknown> {
  return definition as Route<unknown>;
}
