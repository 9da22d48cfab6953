/**
 * Baton's tools for MCP clients (the `/mcp` endpoint): `orchestrate`, one `workflow_<slug>` per
 * workflow the key sees, and `execution_status`. Each tool needs the permission its REST route
 * needs, and only the tools the key may call are listed. Tools run to the end and return the
 * result; a workflow that pauses for an approval returns that pause, not a result.
 */
import { Type } from '@sinclair/typebox';
import { grants, Permission } from '../../services/auth/permissions.js';
import type { KeyPrincipal } from '../../services/auth/principal.js';
import { ApiError, ErrorCode } from '../../domain/errors.js';
import { isTerminalExecution } from '../../domain/executions.js';
import { isTerminalRun } from '../../domain/workflows.js';
import type { OrchestrationService } from '../../services/orchestration/service.js';
import { OrchestrateBody } from '../../schemas/orchestrate.js';
import { RunWorkflowBody } from '../../schemas/workflows.js';
import { compile } from '../../schemas/validation.js';
import type { WorkflowsService } from '../../services/workflows/service.js';
import { waitFor } from './wait.js';

export interface McpToolServices {
  readonly orchestration: OrchestrationService;
  readonly workflows: WorkflowsService;
}

export interface ToolDescription {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  readonly annotations: Record<string, boolean>;
}

export interface ToolResult {
  readonly [key: string]: unknown;
  readonly content: Array<{ type: 'text'; text: string }>;
  readonly structuredContent: Record<string, unknown>;
  readonly isError: boolean;
}

/** Longest a tool call waits for its execution; past it the call returns the status so far. */
export const MAX_TOOL_WAIT_MS = 330_000;
const WORKFLOW_PREFIX = 'workflow_';

const ExecutionStatusArgs = Type.Object({ executionId: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });
const orchestrateArgs = compile(OrchestrateBody);
const runArgs = compile(RunWorkflowBody);
const statusArgs = compile(ExecutionStatusArgs);


export async function listTools(principal: KeyPrincipal, services: McpToolServices): Promise<ToolDescription[]> {
  const held = principal.key.permissions;
  const tools: ToolDescription[] = [];
  if (grants(held, Permission.ORCHESTRATE)) {
    tools.push({
      name: 'orchestrate',
      title: 'Orchestrate agents',
      description: 'Selects the registered agents that fit the query, runs them and returns the aggregated result '
        + '(the body of POST /v1/orchestrate; waits until the execution ends).',
      inputSchema: schemaOf(OrchestrateBody),
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    });
  }
  if (grants(held, Permission.EXECUTIONS_READ) || grants(held, Permission.WORKFLOWS_READ)) {
    tools.push({
      name: 'execution_status',
      title: 'Execution status',
      description: 'The status (and result, once finished) of an orchestration execution or a workflow run by its id.',
      inputSchema: schemaOf(ExecutionStatusArgs),
      annotations: { readOnlyHint: true, openWorldHint: false },
    });
  }
  if (grants(held, Permission.WORKFLOWS_RUN)) {
    const { workflows } = await services.workflows.list(principal.account.id);
    for (const workflow of workflows) {
      tools.push({
        name: `${WORKFLOW_PREFIX}${workflow.slug}`,
        title: workflow.name,
        description: `Runs the workflow "${workflow.name}"${workflow.description ? `: ${workflow.description}` : ''}. `
          + 'Returns the final answer, or the pending approval when a tool call needs one.',
        inputSchema: schemaOf(RunWorkflowBody),
        annotations: { readOnlyHint: false, openWorldHint: true },
      });
    }
  }
  return tools;
}

/** Runs one tool; Baton's own errors (404, 429, no agents…) come back as an error result. */
export async function callTool(principal: KeyPrincipal, services: McpToolServices, name: string, args: unknown, signal: AbortSignal): Promise<ToolResult | null> {
  try {
    if (name === 'orchestrate') return await orchestrate(principal, services, args, signal);
    if (name === 'execution_status') return await executionStatus(principal, services, args);
    if (name.startsWith(WORKFLOW_PREFIX)) return await runWorkflow(principal, services, name.slice(WORKFLOW_PREFIX.length), args, signal);
    return null;
  } catch (error) {
    if (error instanceof ApiError) return result({ error: error.code, message: error.message, ...error.extra }, true);
    throw error;
  }
}

function requirePermission(principal: KeyPrincipal, permission: Permission): void {
  if (!grants(principal.key.permissions, permission)) {
    throw new ApiError(ErrorCode.FORBIDDEN, 'Insufficient permissions', {
      requiredPermission: permission,
      details: `This key lacks the '${permission}' permission`,
    });
  }
}

async function orchestrate(principal: KeyPrincipal, services: McpToolServices, args: unknown, signal: AbortSignal): Promise<ToolResult> {
  requirePermission(principal, Permission.ORCHESTRATE);
  const body = orchestrateArgs.parse(args ?? {});
  const created = await services.orchestration.submit(principal, body, null);
  const id = created.executionId;
  const accountId = principal.account.id;
  const waited = await waitFor(
    async () => services.orchestration.status(accountId, id),
    (view) => isTerminalExecution(view.status),
    MAX_TOOL_WAIT_MS,
    signal,
  );
  return result(waited.settled ? waited.value : { ...waited.value, message: stillRunning(id) }, waited.value.status === 'FAILED');
}

async function executionStatus(principal: KeyPrincipal, services: McpToolServices, args: unknown): Promise<ToolResult> {
  const { executionId } = statusArgs.parse(args ?? {});
  const accountId = principal.account.id;
  const held = principal.key.permissions;
  // Orchestration executions and workflow runs share the id space; each is read only with its own permission.
  if (grants(held, Permission.EXECUTIONS_READ)) {
    try {
      return result(await services.orchestration.status(accountId, executionId), false);
    } catch (error) {
      if (!(error instanceof ApiError && error.code === ErrorCode.EXECUTION_NOT_FOUND) || !grants(held, Permission.WORKFLOWS_READ)) throw error;
    }
  }
  requirePermission(principal, Permission.WORKFLOWS_READ);
  return result(runStatus(await services.workflows.status(accountId, executionId)), false);
}

interface RunView {
  readonly execution_id: string;
  readonly status: string;
  readonly waiting_for_approval: string | null;
  readonly [key: string]: unknown;
}

/** A run paused on an approval says so, with how to decide it. */
function runStatus(view: RunView): Record<string, unknown> {
  if (view.status !== 'running' || view.waiting_for_approval === null) return view;
  const base = `/v1/workflows/execute/${view.execution_id}`;
  return {
    ...view,
    status: 'waiting_for_approval',
    message: `Paused: a tool call needs approval. Approve with POST ${base}/approve/${view.waiting_for_approval} `
      + `or reject with POST ${base}/reject/${view.waiting_for_approval} (permission workflows:approve), then ask execution_status.`,
  };
}

async function runWorkflow(principal: KeyPrincipal, services: McpToolServices, slug: string, args: unknown, signal: AbortSignal): Promise<ToolResult> {
  requirePermission(principal, Permission.WORKFLOWS_RUN);
  const body = runArgs.parse(args ?? {});
  const accountId = principal.account.id;
  const id = (await services.workflows.run(accountId, slug, body)).execution_id;
  const waited = await waitFor(
    async (): Promise<RunView> => services.workflows.status(accountId, id),
    (view) => isTerminalRun(view.status) || view.waiting_for_approval !== null,
    MAX_TOOL_WAIT_MS,
    signal,
  );
  const view = runStatus(waited.value);
  return result(waited.settled ? view : { ...view, message: stillRunning(id) }, waited.value.status === 'failed');
}

function stillRunning(id: string): string {
  return `Still running after ${MAX_TOOL_WAIT_MS / 1000} s; ask execution_status with executionId ${id}.`;
}

function result(body: Record<string, unknown>, isError: boolean): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, isError };
}

/** A TypeBox schema as plain JSON Schema (TypeBox keeps its own symbols on the object). */
function schemaOf(schema: object): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}
