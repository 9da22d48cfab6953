/** Request bodies of the agent endpoints (spec §2.2, §4.5, DESIGN §7). */
import { Type, type Static } from '@sinclair/typebox';
import { Name } from './common.js';
import { MAX_EXAMPLE_LENGTH, MAX_EXAMPLES } from '../domain/agent-examples.js';

const AgentExamples = Type.Array(Type.String({ minLength: 1, maxLength: MAX_EXAMPLE_LENGTH, pattern: '\\S' }), { maxItems: MAX_EXAMPLES });

/** Lowercase slug: letters and digits in runs joined by single hyphens or underscores. */
export const AgentId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9]+(?:[-_][a-z0-9]+)*$' });

const Label = (maxLength: number) => Type.String({ minLength: 1, maxLength, pattern: '^[^\\u0000-\\u001f]+$' });

const AgentFields = {
  name: Name,
  description: Type.String({ maxLength: 4000 }),
  /** Checked against the outbound URL policy and probed before anything is stored. */
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  /** Free category label (spec §2.2). */
  vertical: Label(64),
  capabilities: Type.Array(Label(128), { maxItems: 100, uniqueItems: true }),
  pricing: Type.Object(
    {
      model: Label(64),
      /** USD; stored as integer micro-USD. */
      basePrice: Type.Number({ minimum: 0, maximum: 1_000_000 }),
    },
    { additionalProperties: false },
  ),
  /** Budget per call sent as metadata.timeout; default 30000. */
  timeoutMs: Type.Integer({ minimum: 1000, maximum: 300_000 }),
  /** Example requests for selection (docs/selection.md); limits in src/domain/agent-examples.ts. */
  examples: AgentExamples,
  /** Calls one worker sends the agent at once; more wait their turn. Default 16. */
  maxConcurrency: Type.Integer({ minimum: 1, maximum: 1000 }),
};

export const RegisterAgentBody = Type.Object(
  {
    id: AgentId,
    name: AgentFields.name,
    description: AgentFields.description,
    url: AgentFields.url,
    vertical: AgentFields.vertical,
    capabilities: AgentFields.capabilities,
    pricing: AgentFields.pricing,
    timeoutMs: Type.Optional(AgentFields.timeoutMs),
    examples: Type.Optional(AgentFields.examples),
    maxConcurrency: Type.Optional(AgentFields.maxConcurrency),
  },
  { title: 'RegisterAgentBody', additionalProperties: false },
);
export type RegisterAgentBody = Static<typeof RegisterAgentBody>;

/**
 * Registration of an agent that speaks A2A (docs/a2a.md), by its agent card's URL: name,
 * description, capabilities and examples come from the card unless given here.
 */
export const RegisterA2aAgentBody = Type.Object(
  {
    id: AgentId,
    /** The agent card (e.g. https://host/.well-known/agent-card.json); fetched under the URL policy. */
    a2aCardUrl: Type.String({ minLength: 1, maxLength: 2048 }),
    name: Type.Optional(AgentFields.name),
    description: Type.Optional(AgentFields.description),
    vertical: Type.Optional(AgentFields.vertical),
    capabilities: Type.Optional(AgentFields.capabilities),
    /** Default { model: 'per_execution', basePrice: 0 }: an A2A agent reports no cost. */
    pricing: Type.Optional(AgentFields.pricing),
    timeoutMs: Type.Optional(AgentFields.timeoutMs),
    examples: Type.Optional(AgentFields.examples),
    maxConcurrency: Type.Optional(AgentFields.maxConcurrency),
  },
  { title: 'RegisterA2aAgentBody', additionalProperties: false },
);
export type RegisterA2aAgentBody = Static<typeof RegisterA2aAgentBody>;

/** POST /v1/agents: an agent speaking Baton's protocol, or an A2A agent named by its card URL. */
export const AgentRegistration = Type.Union([RegisterAgentBody, RegisterA2aAgentBody], { title: 'AgentRegistration' });
export type AgentRegistration = Static<typeof AgentRegistration>;

export const UpdateAgentBody = Type.Object(
  {
    name: Type.Optional(AgentFields.name),
    description: Type.Optional(AgentFields.description),
    url: Type.Optional(AgentFields.url),
    vertical: Type.Optional(AgentFields.vertical),
    capabilities: Type.Optional(AgentFields.capabilities),
    pricing: Type.Optional(AgentFields.pricing),
    timeoutMs: Type.Optional(AgentFields.timeoutMs),
    examples: Type.Optional(AgentFields.examples),
    maxConcurrency: Type.Optional(AgentFields.maxConcurrency),
  },
  { title: 'UpdateAgentBody', additionalProperties: false, minProperties: 1 },
);
export type UpdateAgentBody = Static<typeof UpdateAgentBody>;
