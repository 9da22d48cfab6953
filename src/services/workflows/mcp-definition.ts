/**
 * The parts of a workflow step's `mcpServers` the schema cannot check (unique names, URLs under
 * the outbound URL policy, headers the transport owns, overrides of tools `allow` leaves out,
 * HTTP tools whose names would pass for an MCP tool), and their client view.
 */
import { invalidRequest } from '../../domain/errors.js';
import { checkUrlSyntax } from '../../domain/url-policy.js';
import { MCP_DEFAULT_TIMEOUT_MS, MCP_NAME_SEPARATOR, type WorkflowMcpServer, type WorkflowStep } from '../../domain/workflows.js';



/** Set by the Streamable HTTP transport itself; a definition may not replace them. */
const TRANSPORT_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'content-type',
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

/** Throws 400 INVALID_REQUEST naming the field under `at` (`steps.<i>`). */
export function checkMcpServers(step: WorkflowStep, at: string, allowPrivateUrls: boolean): void {
  const seen = new Set<string>();
  (step.mcpServers ?? []).forEach((server, j) => {
    const field = `${at}.mcpServers.${j}`;
    const name = server.name.toLowerCase();
    if (seen.has(name)) throw invalidRequest(`${field}.name`, `MCP server name '${server.name}' is used twice in step '${step.id}'`);
    seen.add(name);
    const url = checkUrlSyntax(server.url, { allowPrivate: allowPrivateUrls });
    if (!url.ok) throw invalidRequest(`${field}.url`, `MCP server URL is not allowed: ${url.message}`);
    for (const header of Object.keys(server.headers ?? {})) {
      if (TRANSPORT_HEADERS.has(header.toLowerCase())) throw invalidRequest(`${field}.headers.${header}`, `Header '${header}' is set by the MCP transport`);
    }
    if (server.allow !== undefined) {
      for (const tool of Object.keys(server.tools ?? {})) {
        if (!server.allow.includes(tool)) throw invalidRequest(`${field}.tools.${tool}`, `Tool '${tool}' has settings but is not in 'allow'`);
      }
    }
    const prefix = `${server.name}${MCP_NAME_SEPARATOR}`;
    (step.tools ?? []).forEach((tool, k) => {
      if (tool.name.startsWith(prefix)) throw invalidRequest(`${at}.tools.${k}.name`, `Tool name '${tool.name}' looks like a tool of MCP server '${server.name}'`);
    });
  });
}

/** Header values are secrets (API keys): the view names the headers only. */
export function mcpServerView(server: WorkflowMcpServer) {
  return {
    name: server.name,
    url: server.url,
    headers: Object.keys(server.headers ?? {}),
    timeoutMs: server.timeoutMs ?? MCP_DEFAULT_TIMEOUT_MS,
    allow: server.allow ?? null,
    tools: server.tools ?? {},
  };
}
