/** Port: calling a workflow tool. Always resolves: a failure is an error string the agent receives. */
import type { WorkflowTool } from '../domain/workflows.js';

export type ToolOutcome = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: string };

export interface ToolCaller {
  /** `traceparent`: the tool call's trace context, sent as the `traceparent` header. */
  call(tool: WorkflowTool, input: Readonly<Record<string, unknown>>, signal: AbortSignal, traceparent?: string): Promise<ToolOutcome>;
}
