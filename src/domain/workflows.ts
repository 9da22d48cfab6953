/** Workflow definitions, runs, their checkpoints, and approvals. */
/** A tool a workflow step may call (DESIGN §8). */
export interface WorkflowTool {
  readonly name: string;
  readonly description?: string;
  readonly url: string;
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  readonly risk: 'low' | 'high';
  /** Per-call budget; default 30000. */
  readonly timeoutMs?: number;
}
/** Between a server's name and its tool's in the name the agent sees. */
export const MCP_NAME_SEPARATOR = '__';
export const MCP_DEFAULT_TIMEOUT_MS = 30_000;

export type McpToolRisk = 'low' | 'medium' | 'high';

/** An MCP server (Streamable HTTP) whose tools a step offers its agent (docs/workflows.md). */
export interface WorkflowMcpServer {
  /** Prefix of its tools' names as the agent sees them: `<name>__<tool>`. */
  readonly name: string;
  readonly url: string;
  /** Sent with every request to the server (an API key, say). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Budget of one list or call; default 30000. */
  readonly timeoutMs?: number;
  /** Only these tools are offered; absent: every tool the server lists. */
  readonly allow?: readonly string[];
  /** Per-tool settings that win over the tool's annotations. */
  readonly tools?: Readonly<Record<string, { readonly risk?: McpToolRisk }>>;
}

export interface WorkflowStep {
  readonly id: string;
  /** An agent id visible to the workflow's account (a global agent for a global workflow). */
  readonly agent: string;
  readonly tools?: readonly WorkflowTool[];
  readonly mcpServers?: readonly WorkflowMcpServer[];
}
/** A workflow definition as submitted (DESIGN §8); defaults are applied where it is run. */
export interface WorkflowDefinition {
  readonly slug: string;
  readonly name: string;
  readonly description?: string;
  readonly steps: readonly WorkflowStep[];
  readonly approvalTimeoutMs?: number;
  readonly onApprovalTimeout?: 'reject' | 'fail';
  readonly maxSteps?: number;
}
/** A stored definition. `accountId` null: global (registered with the operator token). */
export interface WorkflowRecord {
  readonly accountId: string | null;
  readonly definition: WorkflowDefinition;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}
export type WorkflowRunStatus = 'running' | 'completed' | 'failed' | 'cancelled';
/** The statuses a workflow run ends in and never leaves. */
export const TERMINAL_RUN_STATUSES: readonly WorkflowRunStatus[] = ['completed', 'failed', 'cancelled'];
const TERMINAL_RUN: ReadonlySet<string> = new Set(TERMINAL_RUN_STATUSES);
/** Whether a workflow run in this status is over: completed, failed or cancelled. */
export function isTerminalRun(status: string): boolean {
  return TERMINAL_RUN.has(status);
}
/** One entry of `toolResults` as the agent receives it. */
export type ToolResultEntry =
  | { readonly id: string; readonly name: string; readonly result: unknown }
  | { readonly id: string; readonly name: string; readonly error: string };
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}
/** One agent round of a step, as given back to the agent in `history`. */
export interface HistoryEntry {
  readonly stepId: string;
  readonly toolCalls: readonly ToolCall[];
  readonly toolResults: readonly ToolResultEntry[];
}
/** One tool an MCP server listed for a run's step, as the run offers it. */
export interface ListedMcpTool {
  /** The name the agent sees: `<server>__<tool>`. */
  readonly name: string;
  readonly server: string;
  /** The tool's own name on the server. */
  readonly tool: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly risk: McpToolRisk;
}

/** What listing a step's MCP servers gave: their tools, and the servers that could not be listed. */
export interface McpToolset {
  readonly tools: readonly ListedMcpTool[];
  readonly unavailable: ReadonlyArray<{ readonly server: string; readonly error: string }>;
}

/**
 * Where a paused run stands, enough to go on after a restart or on another worker: it is
 * written when the run pauses on an approval (the only point a run is resumed from).
 */
export interface RunCheckpoint {
  readonly stepIndex: number;
  /** Agent rounds used so far (maxSteps counts these). */
  readonly rounds: number;
  readonly previousAnswer: string | null;
  readonly history: readonly HistoryEntry[];
  /** Results collected so far in the current round. */
  readonly toolResults: readonly ToolResultEntry[];
  /** Tool calls of the round still to run; the first waits for `approvalId`. */
  readonly pendingCalls: readonly ToolCall[];
  /** Every tool call of the current round (recorded in `history` once the round is over). */
  readonly roundCalls: readonly ToolCall[];
  readonly approvalId: string;
  /** The MCP tools listed for the current step, so a resumed run does not list them again. */
  readonly mcpToolset?: McpToolset;
  /** Last event sequence number the run appended (so a lost in-process stream continues after it). */
  readonly lastSeq: number;
}
export interface WorkflowRunRecord {
  readonly id: string; // exec_…
  readonly accountId: string;
  readonly status: WorkflowRunStatus;
  /** The definition as it was when the run started; later edits do not change a running run. */
  readonly workflow: WorkflowDefinition;
  readonly task: string;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly conversationId: string | null;
  readonly finalAnswer: string | null;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly checkpoint: RunCheckpoint | null;
  readonly createdAt: string;
  readonly completedAt: string | null;
}
export type WorkflowRunPatch = Partial<Pick<WorkflowRunRecord, 'finalAnswer' | 'error' | 'checkpoint' | 'completedAt'>>;
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled';
export interface ApprovalRecord {
  readonly id: string; // apr_…
  readonly executionId: string;
  readonly accountId: string;
  readonly workflowSlug: string;
  readonly toolCall: ToolCall;
  readonly status: ApprovalStatus;
  readonly reason: string | null;
  readonly requestedAt: Date;
  readonly expiresAt: Date;
  readonly decidedAt: Date | null;
}

/** Defaults of a workflow definition's optional settings (docs/workflows.md). */
export const WORKFLOW_DEFAULTS = {
  approvalTimeoutMs: 600_000,
  onApprovalTimeout: 'reject',
  maxSteps: 20,
  toolTimeoutMs: 30_000,
} as const;
