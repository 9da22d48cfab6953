/** Responses of the workflow endpoints and the events of a run's stream (spec §2.6, §4.9–4.12, §6.2). */
import { Type } from '@sinclair/typebox';
import { AnyJson, JsonObject, Nullable, Timestamp } from './common.js';
import { TERMINAL_RUN_STATUSES } from '../../domain/workflows.js';

const Failure = Type.Object({ code: Type.String(), message: Type.String() });

export const Workflow = Type.Object(
  {
    slug: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    steps: Type.Array(
      Type.Object({
        id: Type.String(),
        agent: Type.String(),
        tools: Type.Array(
          Type.Object({
            name: Type.String(),
            description: Nullable(Type.String()),
            url: Type.String(),
            inputSchema: Nullable(JsonObject),
            risk: Type.Union([Type.Literal('low'), Type.Literal('high')]),
            timeoutMs: Type.Integer(),
          }),
        ),
        mcpServers: Type.Array(
          Type.Object({
            name: Type.String(),
            url: Type.String(),
            headers: Type.Array(Type.String(), { description: 'Names of the headers sent; their values are not shown' }),
            timeoutMs: Type.Integer(),
            allow: Nullable(Type.Array(Type.String())),
            tools: Type.Record(Type.String(), Type.Object({ risk: Type.Optional(Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')])) })),
          }),
        ),
      }),
    ),
    approvalTimeoutMs: Type.Integer(),
    onApprovalTimeout: Type.Union([Type.Literal('reject'), Type.Literal('fail')]),
    maxSteps: Type.Integer(),
    scope: Type.Union([Type.Literal('account'), Type.Literal('global'), Type.Literal('file')], {
      description: 'file: loaded from BATON_WORKFLOWS_DIR; cannot be changed through the API',
    }),
    createdAt: Nullable(Timestamp),
    updatedAt: Nullable(Timestamp),
  },
  { title: 'Workflow' },
);

export const WorkflowList = Type.Object({ workflows: Type.Array(Workflow) }, { title: 'WorkflowList' });

const RunState = Type.Union(['running', 'queued', 'completed', 'failed', 'cancelled'].map((s) => Type.Literal(s)));

const RunFields = {
  execution_id: Type.String({ description: 'Prefix exec_' }),
  status: RunState,
  workflow_slug: Type.String(),
  workflow_name: Type.String(),
  stream_url: Type.String({ description: 'Relative URL of the event stream' }),
  created_at: Timestamp,
  conversation_id: Nullable(Type.String()),
};

export const WorkflowRunStarted = Type.Object(
  {
    ...RunFields,
    queue_position: Type.Optional(Type.Integer({ description: 'When queued behind the account’s concurrency limit' })),
    message: Type.Optional(Type.String()),
  },
  { title: 'WorkflowRunStarted' },
);

export const WorkflowRun = Type.Object(
  {
    ...RunFields,
    completed_at: Nullable(Timestamp),
    final_answer: Nullable(Type.String()),
    error: Nullable(Failure),
    waiting_for_approval: Nullable(Type.String({ description: 'The approval id the run is paused on' })),
  },
  { title: 'WorkflowRun' },
);

export const Approval = Type.Object(
  {
    approval_id: Type.String({ description: 'Prefix apr_' }),
    execution_id: Type.String(),
    workflow_slug: Type.String(),
    tool_name: Type.String(),
    tool_input: JsonObject,
    status: Type.Union(['pending', 'approved', 'rejected', 'expired', 'cancelled'].map((s) => Type.Literal(s))),
    reason: Nullable(Type.String()),
    requested_at: Timestamp,
    expires_at: Timestamp,
    decided_at: Nullable(Timestamp),
  },
  { title: 'Approval' },
);

export const ApprovalList = Type.Object({ approvals: Type.Array(Approval) }, { title: 'ApprovalList' });

/** The `data` of each event on GET /api/v1/workflows/execute/{id}/stream, by event name. */
export const WorkflowStreamEvents = {
  chunk: Type.Object({ content: Type.String(), step_id: Type.String() }, { title: 'ChunkEvent', description: "Text of the agent's answer; concatenate" }),
  tool_executing: Type.Object(
    { tool_name: Type.String(), tool_input: JsonObject, tool_call_id: Type.String(), step_id: Type.String() },
    { title: 'ToolExecutingEvent', description: 'Before a tool runs' },
  ),
  tool_result: Type.Object(
    { tool_name: Type.String(), tool_call_id: Type.String(), step_id: Type.String(), result: AnyJson, error: Type.Optional(Type.String()) },
    { title: 'ToolResultEvent', description: 'A tool finished (result null and error set when it failed or was rejected)' },
  ),
  approval_request: Type.Object(
    { approval_id: Type.String(), tool_name: Type.String(), tool_input: JsonObject, tool_call_id: Type.String(), expires_at: Timestamp },
    { title: 'ApprovalRequestEvent', description: 'A high-risk tool waits for approve or reject; the run pauses' },
  ),
  approval_resolved: Type.Object(
    { approval_id: Type.String(), decision: Type.String({ description: 'approved, rejected or expired' }), reason: Nullable(Type.String()) },
    { title: 'ApprovalResolvedEvent' },
  ),
  error: Type.Object({ code: Type.String(), message: Type.String() }, { title: 'RunErrorEvent', description: 'Why the run failed; a done event follows' }),
  done: Type.Object(
    { execution_id: Type.String(), status: Type.Union(TERMINAL_RUN_STATUSES.map((s) => Type.Literal(s))), final_answer: Nullable(Type.String()) },
    { title: 'DoneEvent', description: 'The last event; the stream ends after it' },
  ),
};
