/**
 * The selection part of a request (spec §2.4, §4.1, DESIGN §7), shared by POST /v1/orchestrate
 * and POST /v1/agents/selection-preview so both validate it identically. Context depth (at most
 * 10, the context object itself being depth 1) is not expressible in JSON Schema: callers check
 * it with `exceedsDepth` after the schema (see `parseSelectionRequest`).
 */
import { Type, type Static } from '@sinclair/typebox';
import { invalidRequest } from '../domain/errors.js';
import { exceedsDepth } from './validation.js';

export const MAX_CONTEXT_DEPTH = 10;

export const SelectionCriteriaSchema = Type.Object(
  {
    verticals: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50 })),
    requiredCapabilities: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 50 })),
    maxAgents: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
    minConfidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  },
  { additionalProperties: false },
);
export type SelectionCriteriaBody = Static<typeof SelectionCriteriaSchema>;

export const Query = Type.String({ minLength: 1, maxLength: 10_000 });
export const Context = Type.Record(Type.String(), Type.Unknown());

export const SelectionPreviewBody = Type.Object(
  {
    query: Query,
    context: Type.Optional(Context),
    selectionCriteria: Type.Optional(SelectionCriteriaSchema),
  },
  { title: 'SelectionPreviewBody', additionalProperties: false },
);
export type SelectionPreviewBody = Static<typeof SelectionPreviewBody>;

/** The depth rule of DESIGN §7; throws 400 INVALID_REQUEST on `context`. */
export function checkContextDepth(context: unknown): void {
  if (context !== undefined && exceedsDepth(context, MAX_CONTEXT_DEPTH)) {
    throw invalidRequest('context', `'context' is nested deeper than ${MAX_CONTEXT_DEPTH} levels`);
  }
}
