/** Responses of the /v1/agents endpoints (spec §2.2, §4.4, §4.5; DESIGN §7). */
import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp } from './common.js';

const Pricing = Type.Object({ model: Type.String(), basePrice: Type.Number({ description: 'USD' }) });

const AgentFields = {
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  vertical: Type.String(),
  capabilities: Type.Array(Type.String()),
  pricing: Pricing,
  scope: Type.Union([Type.Literal('global'), Type.Literal('account')]),
  protocol: Type.Union([Type.Literal('baton'), Type.Literal('a2a')], { description: "a2a: registered by its A2A agent card and called with message/send" }),
  a2aCardUrl: Type.Optional(Type.String({ description: "The agent card an A2A agent was registered by; shown only to the agent's owner" })),
  url: Type.Optional(Type.String({ description: "Shown only to the agent's owner" })),
  timeoutMs: Type.Optional(Type.Integer({ description: "Shown only to the agent's owner" })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
};

export const Agent = Type.Object(AgentFields, { title: 'Agent' });

export const AgentHealth = Type.Object(
  {
    healthy: Type.Boolean(),
    circuit: Type.Union([Type.Literal('closed'), Type.Literal('open'), Type.Literal('half_open')]),
    successRate: Type.Number({ minimum: 0, maximum: 1 }),
    latencyMs: Nullable(Type.Integer()),
    inFlight: Type.Integer(),
    queued: Type.Integer(),
    lastHealthCheckAt: Nullable(Timestamp),
    lastHealthError: Nullable(Type.String()),
  },
  { title: 'AgentHealth' },
);

/** One agent with its live health, when this worker holds its actor. */
export const AgentDetail = Type.Object({ ...AgentFields, status: Type.Optional(AgentHealth) }, { title: 'AgentDetail' });

export const AgentList = Type.Object(
  { agents: Type.Array(Agent), nextCursor: Nullable(Type.String({ description: 'Pass as ?cursor= for the next page' })) },
  { title: 'AgentList' },
);

const CandidateStatus = Type.Union(
  ['selected', 'filtered_vertical', 'filtered_capability', 'unhealthy', 'circuit_open', 'below_min_confidence', 'beyond_max_agents'].map((s) => Type.Literal(s)),
);

export const SelectionPreview = Type.Object(
  {
    criteria: Type.Object({
      maxAgents: Type.Integer(),
      minConfidence: Type.Number(),
      verticals: Type.Optional(Type.Array(Type.String())),
      requiredCapabilities: Type.Optional(Type.Array(Type.String())),
    }),
    selected: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), vertical: Type.String(), confidence: Type.Number() })),
    candidates: Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.Optional(Type.String()),
        vertical: Type.Optional(Type.String()),
        status: CandidateStatus,
        selected: Type.Boolean(),
        confidence: Type.Number(),
        relevance: Type.Number(),
        reliability: Type.Number(),
        signals: Type.Object({ text: Type.Number(), meaning: Type.Number(), clause: Nullable(Type.String()) }),
        matches: Type.Object({
          name: Type.Array(Type.String()),
          capabilities: Type.Array(Type.String()),
          vertical: Type.Array(Type.String()),
          description: Type.Array(Type.String()),
        }),
        reasons: Type.Array(Type.String()),
      }),
    ),
  },
  { title: 'SelectionPreview' },
);
