/** POST /v1/orchestrate (spec §4.1, §2.4, §2.5; DESIGN §7). Selection fields are shared with the preview. */
import { Type, type Static } from '@sinclair/typebox';
import { Context, Query, SelectionCriteriaSchema } from './selection.js';

export const WebhookConfig = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    events: Type.Optional(
      Type.Array(
        Type.Union([
          Type.Literal('execution.started'),
          Type.Literal('execution.completed'),
          Type.Literal('execution.failed'),
          Type.Literal('execution.cancelled'),
        ]),
        { minItems: 1, maxItems: 4, uniqueItems: true },
      ),
    ),
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  },
  { additionalProperties: false },
);

export const AgentId = Type.String({ minLength: 1, maxLength: 100 });

export const OrchestrateBody = Type.Object(
  {
    query: Query,
    context: Type.Optional(Context),
    selectionCriteria: Type.Optional(SelectionCriteriaSchema),
    aggregationStrategy: Type.Optional(
      Type.Union([Type.Literal('merge'), Type.Literal('best'), Type.Literal('vote'), Type.Literal('custom')]),
    ),
    mode: Type.Optional(Type.Union([Type.Literal('SEQUENTIAL'), Type.Literal('PARALLEL'), Type.Literal('DAG')])),
    webhook: Type.Optional(WebhookConfig),
    /** DAG only: `{ agentId: [agentIds it waits for] }`. */
    dependencies: Type.Optional(Type.Record(AgentId, Type.Array(AgentId, { maxItems: 10 }))),
    /** custom aggregation: the agent that combines the outputs. */
    customAggregator: Type.Optional(AgentId),
    /** Lowers every agent's own timeout for this execution. */
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1000, maximum: 300_000 })),
    /** Budget cap in USD, platform fee included. */
    maxCost: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
  },
  { title: 'OrchestrateBody', additionalProperties: false },
);
export type OrchestrateBody = Static<typeof OrchestrateBody>;
