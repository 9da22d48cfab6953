/** Port: a workflow step's MCP servers (Streamable HTTP), listed and called. Implemented in src/adapters/tools/mcp-client.ts. */
import type { WorkflowMcpServer } from '../domain/workflows.js';
import type { ToolOutcome } from './tools.js';

/** A tool as the server listed it (bounded: see `MAX_LISTED_TOOLS`). */
export interface McpServerTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly annotations: { readonly readOnlyHint?: boolean; readonly destructiveHint?: boolean };
}

export type McpListOutcome = { readonly ok: true; readonly tools: readonly McpServerTool[] } | { readonly ok: false; readonly error: string };

export interface McpCaller {
  list(server: WorkflowMcpServer, signal: AbortSignal): Promise<McpListOutcome>;
  call(server: WorkflowMcpServer, tool: string, input: Readonly<Record<string, unknown>>, signal: AbortSignal, traceparent?: string): Promise<ToolOutcome>;
}
