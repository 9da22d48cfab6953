/**
 * From what a step's MCP servers listed to the tools a run offers its agent: names prefixed with
 * the server's (`<server>__<tool>`), `allow` applied, and each tool's risk — the definition's
 * override, else the tool's annotations (`destructiveHint` → high, `readOnlyHint` → low), else
 * medium. Pure: the listing itself is mcp-client.ts's.
 */
import { MCP_NAME_SEPARATOR, type ListedMcpTool, type McpToolRisk, type McpToolset, type WorkflowMcpServer, type WorkflowStep } from '../domain/workflows.js';
import type { McpListOutcome, McpServerTool } from '../ports/mcp.js';

export function mcpRisk(server: WorkflowMcpServer, tool: McpServerTool): McpToolRisk {
  const override = server.tools?.[tool.name]?.risk;
  if (override !== undefined) return override;
  if (tool.annotations.destructiveHint === true) return 'high';
  if (tool.annotations.readOnlyHint === true) return 'low';
  return 'medium';
}

/** `listings[i]` is what `step.mcpServers[i]` answered. */
export function mcpToolsetOf(servers: readonly WorkflowMcpServer[], listings: readonly McpListOutcome[]): McpToolset {
  const tools: ListedMcpTool[] = [];
  const unavailable: Array<{ server: string; error: string }> = [];
  servers.forEach((server, i) => {
    const listing = listings[i];
    if (listing === undefined || !listing.ok) {
      unavailable.push({ server: server.name, error: listing?.ok === false ? listing.error : 'not listed' });
      return;
    }
    for (const tool of listing.tools) {
      if (server.allow !== undefined && !server.allow.includes(tool.name)) continue;
      tools.push({
        name: `${server.name}${MCP_NAME_SEPARATOR}${tool.name}`,
        server: server.name,
        tool: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        risk: mcpRisk(server, tool),
      });
    }
  });
  return { tools, unavailable };
}

export type McpToolLookup =
  | { readonly kind: 'tool'; readonly tool: ListedMcpTool; readonly server: WorkflowMcpServer }
  | { readonly kind: 'unavailable'; readonly error: string };

/** The MCP tool an agent's call names, why it cannot run, or undefined when it names none. */
export function findMcpTool(step: WorkflowStep, toolset: McpToolset | null, name: string): McpToolLookup | undefined {
  const cut = name.indexOf(MCP_NAME_SEPARATOR);
  if (cut <= 0) return undefined;
  const serverName = name.slice(0, cut);
  const server = (step.mcpServers ?? []).find((s) => s.name === serverName);
  if (server === undefined) return undefined;
  const down = toolset?.unavailable.find((u) => u.server === serverName);
  if (down !== undefined) return { kind: 'unavailable', error: `MCP server '${serverName}' is unavailable: ${down.error}` };
  const tool = toolset?.tools.find((t) => t.name === name);
  return tool === undefined ? undefined : { kind: 'tool', tool, server };
}
