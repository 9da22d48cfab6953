/** Request bodies of the workflow endpoints (spec §4.9–4.12, DESIGN §8). */
import { Type, type Static } from '@sinclair/typebox';
import type { WorkflowDefinition } from '../domain/workflows.js';
import { AgentId } from './agents.js';
import { Name } from './common.js';

/** Lowercase slug: letters and digits in runs joined by single hyphens or underscores. */
export const WorkflowSlug = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9]+(?:[-_][a-z0-9]+)*$' });

const ToolName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$' });

export const WorkflowTool = Type.Object(
  {
    name: ToolName,
    description: Type.Optional(Type.String({ maxLength: 4000 })),
    /** POSTed `{ input }`; checked against the outbound URL policy. */
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    /** A JSON Schema handed to the agent as is; the service does not validate inputs with it. */
    inputSchema: Type.Optional(Type.Unsafe<Readonly<Record<string, unknown>>>({ type: 'object' })),
    risk: Type.Union([Type.Literal('low'), Type.Literal('high')]),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 300_000 })),
  },
  { additionalProperties: false },
);

/** Letters, digits and hyphens: no underscore, so `<server>__<tool>` splits at its first `__`. */
const McpServerName = Type.String({ minLength: 1, maxLength: 32, pattern: '^[A-Za-z0-9-]+$' });
/** MCP tool names as the MCP specification recommends them. */
const McpToolName = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.-]+$' });
const McpRisk = Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')]);

export const WorkflowMcpServer = Type.Object(
  {
    name: McpServerName,
    /** Streamable HTTP endpoint; checked against the outbound URL policy. */
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    headers: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$' }), Type.String({ maxLength: 4096, pattern: '^[^\\u0000-\\u001f]*$' }), {
        maxProperties: 16,
        additionalProperties: false,
      }),
    ),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 300_000 })),
    allow: Type.Optional(Type.Array(McpToolName, { minItems: 1, maxItems: 64, uniqueItems: true })),
    tools: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z0-9_.-]{1,128}$' }), Type.Object({ risk: Type.Optional(McpRisk) }, { additionalProperties: false }), { maxProperties: 64, additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);

export const WorkflowStep = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$' }),
    agent: AgentId,
    tools: Type.Optional(Type.Array(WorkflowTool, { maxItems: 32 })),
    mcpServers: Type.Optional(Type.Array(WorkflowMcpServer, { maxItems: 8 })),
  },
  { additionalProperties: false },
);

const DefinitionFields = {
  name: Name,
  description: Type.Optional(Type.String({ maxLength: 4000 })),
  steps: Type.Array(WorkflowStep, { minItems: 1, maxItems: 20 }),
  /** How long a high-risk tool call waits for a decision; default 600000 (10 min), at most 7 days. */
  approvalTimeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 7 * 86_400_000 })),
  onApprovalTimeout: Type.Optional(Type.Union([Type.Literal('reject'), Type.Literal('fail')])),
  /** Agent rounds (calls) a run may make over all its steps; default 20. */
  maxSteps: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
};

export const WorkflowBody = Type.Object({ slug: WorkflowSlug, ...DefinitionFields }, { title: 'WorkflowBody', additionalProperties: false });
export type WorkflowBody = Static<typeof WorkflowBody>;

/** PUT: the slug is in the path; a slug in the body must match it. */
export const WorkflowReplaceBody = Type.Object({ slug: Type.Optional(WorkflowSlug), ...DefinitionFields }, { title: 'WorkflowReplaceBody', additionalProperties: false });
export type WorkflowReplaceBody = Static<typeof WorkflowReplaceBody>;

export const RunWorkflowBody = Type.Object(
  {
    task: Type.String({ minLength: 1, maxLength: 10_000 }),
    /** Free-form; `conversation_id` (string) is echoed in the response. */
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { title: 'RunWorkflowBody', additionalProperties: false },
);
export type RunWorkflowBody = Static<typeof RunWorkflowBody>;

export const DecisionBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 2000 })) }, { title: 'DecisionBody', additionalProperties: false });
export type DecisionBody = Static<typeof DecisionBody>;

// The stored shape and the schema must not drift apart.
const sameShape: WorkflowDefinition = null as unknown as WorkflowBody;
void sameShape;
