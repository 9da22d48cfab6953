/** A fake of the ToolCaller port (src/ports/tools.ts): tools answer by name, every call recorded. */
import type { WorkflowTool } from '../../src/domain/workflows.js';
import type { ToolCaller, ToolOutcome } from '../../src/ports/tools.js';

export interface ToolInvocation {
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
}

export class RecordedTools implements ToolCaller {
  readonly calls: ToolInvocation[] = [];
  /** Default answer: `{ ok: true, result: { ran: <name> } }`. */
  constructor(readonly answer: (name: string, input: Readonly<Record<string, unknown>>) => ToolOutcome = (name) => ({ ok: true, result: { ran: name } })) {}

  async call(tool: WorkflowTool, input: Readonly<Record<string, unknown>>): Promise<ToolOutcome> {
    this.calls.push({ name: tool.name, input });
    return this.answer(tool.name, input);
  }
}
