/**
 * Request validation: TypeBox schemas compiled once by Ajv at module load (never per request),
 * and Ajv's first error turned into 400 INVALID_REQUEST naming the dotted path of the field.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import * as ajvFormats from 'ajv-formats';
import { invalidRequest, type ApiError } from '../domain/errors.js';

// ajv-formats is CommonJS; under NodeNext its plugin is the namespace's `default`.
const addFormats = ajvFormats.default as unknown as ajvFormats.FormatsPlugin;

const ajv = new Ajv({ allErrors: false, coerceTypes: false, useDefaults: false, strict: true });
addFormats(ajv, ['date-time', 'uri', 'email']);

export interface Validator<T> {
  /** Returns the typed value, or throws 400 INVALID_REQUEST naming the offending field. */
  parse(value: unknown): T;
  readonly schema: TSchema;
}

export function compile<S extends TSchema>(schema: S): Validator<Static<S>> {
  const check: ValidateFunction = ajv.compile(schema);
  return {
    schema,
    parse(value: unknown): Static<S> {
      if (check(value)) return value as Static<S>;
      throw toApiError(check.errors?.[0]);
    },
  };
}

function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function join(base: string, leaf: string): string {
  return base === '' ? leaf : `${base}.${leaf}`;
}

function toApiError(error: ErrorObject | undefined): ApiError {
  if (error === undefined) return invalidRequest('', 'Invalid request body');
  const path = pointerToPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const field = join(path, String(params.missingProperty));
      return invalidRequest(field, `'${field}' is required`);
    }
    case 'additionalProperties': {
      const field = join(path, String(params.additionalProperty));
      return invalidRequest(field, `'${field}' is not a known field`);
    }
    default: {
      const field = path;
      const subject = field === '' ? 'Request body' : `'${field}'`;
      return invalidRequest(field, `${subject} ${error.message ?? 'is invalid'}`);
    }
  }
}

/**
 * Depth of a JSON value, where an object or array is one level and its contents add more.
 * Iterative, and stops counting past `limit` so absurd nesting costs nothing extra.
 */
export function exceedsDepth(value: unknown, limit: number): boolean {
  const stack: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    const children = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push({ node: child, depth: depth + 1 });
    }
  }
  return false;
}
