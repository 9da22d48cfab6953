/**
 * The agent protocol payloads of spec §2.8 as TypeBox schemas (the TS types are derived from
 * them) and their Ajv validators, compiled once when this module loads. Extra fields an agent
 * sends are tolerated (agents evolve independently) but never copied into what we keep.
 * Length caps bound what an agent can make us store.
 */
import { Type } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';

const NonNegative = Type.Number({ minimum: 0 });

export const AgentInfoSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 128 }),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.String({ maxLength: 4000 }),
  version: Type.String({ maxLength: 64 }),
  capabilities: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 100 }),
  pricing: Type.Object({
    model: Type.String({ minLength: 1, maxLength: 64 }),
    basePrice: NonNegative,
  }),
});
/** `examples`: what the agent offers for selection, read leniently (src/domain/agent-examples.ts); absent when none. */
export type AgentInfo = Static<typeof AgentInfoSchema> & { readonly examples?: readonly string[] };

export const AgentHealthSchema = Type.Object({
  status: Type.String({ maxLength: 64 }),
  /** Unix seconds. */
  timestamp: Type.Number(),
});
export type AgentHealth = Static<typeof AgentHealthSchema>;

export const ExecuteRequestSchema = Type.Object({
  input: Type.Object({
    prompt: Type.String(),
    context: Type.Record(Type.String(), Type.Unknown()),
  }),
  metadata: Type.Object({
    requestId: Type.String(),
    userId: Type.String(),
    /** Milliseconds the agent may take; it must give up beyond it. */
    timeout: Type.Integer({ minimum: 1 }),
  }),
});
export type ExecuteRequest = Static<typeof ExecuteRequestSchema>;

/**
 * Success metadata. `cost` and `duration` may be missing (DESIGN §14: lenient where the spec's
 * samples are): the agent's base price and Baton's measured duration stand in. When present they
 * must be non-negative numbers; a wrong type is still refused.
 */
export const ExecuteMetadataSchema = Type.Object({
  /** USD, the agent's whole cost for this call. */
  cost: Type.Optional(NonNegative),
  /** Milliseconds, as the agent measured them. */
  duration: Type.Optional(NonNegative),
  model: Type.Optional(Type.String({ maxLength: 200 })),
  tokensUsed: Type.Optional(Type.Object({
    input: Type.Integer({ minimum: 0 }),
    output: Type.Integer({ minimum: 0 }),
  })),
});
export type ExecuteMetadata = Static<typeof ExecuteMetadataSchema>;

/** `result` must be a JSON object; a body without `metadata` at all is read as one without cost and duration. */
export const ExecuteSuccessSchema = Type.Object({
  result: Type.Record(Type.String(), Type.Unknown()),
  metadata: Type.Optional(ExecuteMetadataSchema),
});
export type ExecuteSuccessBody = Static<typeof ExecuteSuccessSchema>;

/** A failure body keeps its `error` even when its metadata (or part of it) is missing; no cost reported is no charge. */
export const ExecuteFailureSchema = Type.Object({
  result: Type.Null(),
  metadata: Type.Optional(Type.Object({ cost: Type.Optional(NonNegative), duration: Type.Optional(NonNegative) })),
  error: Type.String(),
});
export type ExecuteFailureBody = Static<typeof ExecuteFailureSchema>;

/** One SSE event carrying answer text (see sse.ts for the convention). */
export const StreamChunkSchema = Type.Object({ chunk: Type.String() });
export type StreamChunk = Static<typeof StreamChunkSchema>;

const ajv = new Ajv({ strict: true, allErrors: false, coerceTypes: false, useDefaults: false });

function compile<S extends TSchema>(schema: S): ValidateFunction<Static<S>> {
  return ajv.compile<Static<S>>(schema);
}

export const validateInfo = compile(AgentInfoSchema);
export const validateHealth = compile(AgentHealthSchema);
export const validateExecuteRequest = compile(ExecuteRequestSchema);
export const validateExecuteSuccess = compile(ExecuteSuccessSchema);
export const validateExecuteFailure = compile(ExecuteFailureSchema);
export const validateStreamChunk = compile(StreamChunkSchema);

/** The first validation error as one line ("/metadata/cost must be number"). */
export function describeErrors(validate: ValidateFunction): string {
  const first = validate.errors?.[0];
  if (first === undefined) return 'does not match the protocol';
  return `${first.instancePath === '' ? 'body' : first.instancePath} ${first.message ?? 'is invalid'}`;
}
