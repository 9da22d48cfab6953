/** Responses of POST /v1/orchestrate and the /v1/executions endpoints (spec §2.3, §4.1–4.3). */
import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp } from './common.js';

export const ExecutionState = Type.Union(
  ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED'].map((s) => Type.Literal(s)),
  { title: 'ExecutionState' },
);
const Mode = Type.Union([Type.Literal('SEQUENTIAL'), Type.Literal('PARALLEL'), Type.Literal('DAG')]);
const Strategy = Type.Union([Type.Literal('merge'), Type.Literal('best'), Type.Literal('vote'), Type.Literal('custom')]);

export const ExecutionCreated = Type.Object(
  {
    executionId: Type.String({ description: 'Prefix exec_' }),
    status: ExecutionState,
    estimatedCost: Type.Number({ description: 'USD, platform fee included' }),
    estimatedDuration: Type.Number({ description: 'Milliseconds' }),
    selectedAgents: Type.Array(
      Type.Object({ id: Type.String(), name: Type.String(), vertical: Type.String(), estimatedCost: Type.Number(), confidence: Type.Number() }),
    ),
    mode: Mode,
    message: Type.String(),
    statusUrl: Type.String({ description: 'Absolute URL of GET /v1/executions/{id}' }),
  },
  { title: 'ExecutionCreated' },
);

export const ExecutionResult = Type.Object(
  { summary: Type.String(), details: Type.Record(Type.String(), Type.Unknown(), { description: 'Per agent id: its output or its error' }) },
  { title: 'ExecutionResult' },
);

export const FailureReason = Type.Object({ code: Type.String(), message: Type.String() }, { title: 'FailureReason' });

export const RunMetadata = Type.Object(
  {
    actualCost: Type.Number({ description: 'USD, platform fee included' }),
    actualDuration: Type.Number({ description: 'Milliseconds' }),
    agentsUsed: Type.Integer(),
  },
  { title: 'RunMetadata' },
);

export const Execution = Type.Object(
  {
    id: Type.String(),
    status: ExecutionState,
    query: Type.String({ description: 'The submitted query, cut at 500 characters' }),
    mode: Mode,
    aggregationStrategy: Strategy,
    selectedAgents: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), confidence: Type.Number() })),
    estimatedCost: Type.Number(),
    estimatedDuration: Type.Number(),
    progress: Type.Optional(
      Type.Object({ completed: Type.Integer(), total: Type.Integer(), currentAgent: Nullable(Type.String()) }, { description: 'While RUNNING' }),
    ),
    result: Type.Optional(ExecutionResult),
    error: Type.Optional(FailureReason),
    metadata: Type.Optional(RunMetadata),
    createdAt: Timestamp,
    startedAt: Type.Optional(Timestamp),
    completedAt: Type.Optional(Timestamp),
  },
  { title: 'Execution' },
);

export const WebhookDelivery = Type.Object(
  {
    id: Type.String(),
    event: Type.String(),
    url: Type.String(),
    status: Type.Union(['pending', 'delivering', 'delivered', 'failed'].map((s) => Type.Literal(s))),
    attempts: Type.Integer(),
    maxAttempts: Type.Integer(),
    lastStatusCode: Nullable(Type.Integer()),
    lastError: Nullable(Type.String()),
    lastAttemptAt: Nullable(Timestamp),
    nextAttemptAt: Nullable(Timestamp),
    createdAt: Timestamp,
    deliveredAt: Nullable(Timestamp),
  },
  { title: 'WebhookDelivery' },
);

export const WebhookDeliveryList = Type.Object(
  { executionId: Type.String(), deliveries: Type.Array(WebhookDelivery) },
  { title: 'WebhookDeliveryList' },
);

