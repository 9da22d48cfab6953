/**
 * The MCP server behind `/mcp`: one per request, bound to the calling key (stateless Streamable
 * HTTP: no session survives the request, so any worker can answer any request). Tools come
 * from tools.ts; this file only wires them to the SDK's protocol handling.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { KeyPrincipal } from '../../services/auth/principal.js';
import type { Logger } from '../../support/log.js';
import { VERSION } from '../../support/version.js';
import { callTool, listTools, type McpToolServices } from './tools.js';

export interface McpHttpAnswer {
  readonly status: number;
  readonly contentType: string | null;
  readonly text: string;
}

export interface McpServices extends McpToolServices {
  readonly logger: Logger;
}

function createServer(principal: KeyPrincipal, services: McpServices, requestId: string, signal: AbortSignal): Server {
  const server = new Server(
    { name: 'baton', version: VERSION },
    {
      capabilities: { tools: {} },
      instructions: 'Baton runs registered agents: `orchestrate` picks agents for a query and returns their combined result; '
        + 'each `workflow_<slug>` tool runs a workflow to its final answer or to a pending approval; '
        + '`execution_status` reads a run by id.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await listTools(principal, services) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    let outcome;
    try {
      outcome = await callTool(principal, services, request.params.name, request.params.arguments, signal);
    } catch (error) {
      // The SDK would send the raw message (a store error, say) to the client: log it, send a generic one.
      services.logger.error({ err: error, requestId, tool: request.params.name }, 'MCP tool call failed');
      throw new McpError(ErrorCode.InternalError, `Internal error (request ${requestId})`);
    }
    if (outcome === null) throw new McpError(ErrorCode.InvalidParams, `Unknown tool '${request.params.name}'`);
    return outcome;
  });
  return server;
}

/**
 * Answers one POST /mcp whose JSON body the pipeline already read and size-checked: the SDK's
 * web-standard transport does the protocol (validation, batching, notifications → 202) and
 * answers JSON rather than a stream, which the pipeline then writes.
 */
export async function answerMcpPost(
  principal: KeyPrincipal,
  services: McpServices,
  headers: Readonly<Record<string, string>>,
  body: unknown,
  requestId: string,
  signal: AbortSignal,
): Promise<McpHttpAnswer> {
  const server = createServer(principal, services, requestId, signal);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const forwarded = new Headers({ 'content-type': 'application/json' });
    for (const name of ['accept', 'mcp-protocol-version']) {
      const value = headers[name];
      if (value !== undefined && value !== '') forwarded.set(name, value);
    }
    // The URL is never fetched; the transport only reads the method and headers from it.
    const request = new Request('http://baton.local/mcp', { method: 'POST', headers: forwarded });
    const response = await transport.handleRequest(request, { parsedBody: body });
    return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
  } finally {
    await server.close();
  }
}
