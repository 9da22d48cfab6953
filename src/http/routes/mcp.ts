/**
 * `/mcp`: Baton as an MCP server over Streamable HTTP (stateless, JSON answers). POST carries the
 * JSON-RPC messages; a key authenticates as on the REST API and each tool needs its route's
 * permission (src/http/mcp/tools.ts). GET (a server-to-client stream) and DELETE (ending a session)
 * have no meaning without sessions: 405, as the transport specification allows.
 */
import { asKey } from '../../services/auth/principal.js';
import { json, route, type Reply } from '../route.js';
import { answerMcpPost, type McpServices } from '../mcp/server.js';
import { Type } from '@sinclair/typebox';
import { compile } from '../../schemas/validation.js';

/** Any JSON: the MCP SDK validates the messages itself, with JSON-RPC errors. */
const anyJson = compile(Type.Unknown());

function methodNotAllowed(): Reply {
  return json(405, { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this endpoint is stateless; POST JSON-RPC messages to /mcp' }, id: null }, { Allow: 'POST' });
}

export function mcpRoutes(services: McpServices) {
  return [
    route({
      method: 'post',
      path: '/mcp',
      access: { kind: 'key' },
      body: anyJson,
      headers: ['accept', 'mcp-protocol-version'],
      doc: { summary: 'MCP (Streamable HTTP, stateless JSON-RPC): orchestrate, workflows and execution status as tools', tag: 'mcp', responses: { 200: Type.Unknown({ title: 'McpResponse' }), 202: null } },
      handle: async (ctx): Promise<Reply> => {
        const answer = await answerMcpPost(asKey(ctx.principal), services, ctx.headers, ctx.body, ctx.requestId, ctx.signal);
        if (answer.text === '') return { kind: 'empty', status: answer.status };
        if (answer.contentType?.includes('application/json') === true) return json(answer.status, JSON.parse(answer.text) as unknown);
        // The transport only answers JSON in this mode; anything else is passed on as an error body.
        return json(answer.status, { jsonrpc: '2.0', error: { code: -32603, message: answer.text }, id: null });
      },
    }),
    route({ method: 'get', path: '/mcp', access: { kind: 'key' }, doc: { summary: 'not supported (405)', responses: {}, hidden: true }, handle: methodNotAllowed }),
    route({ method: 'del', path: '/mcp', access: { kind: 'key' }, doc: { summary: 'not supported (405)', responses: {}, hidden: true }, handle: methodNotAllowed }),
  ];
}
