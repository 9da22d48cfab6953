/**
 * A real MCP server for the workflow tests, built with the SDK's McpServer and its Streamable
 * HTTP server transport (stateless: a server and transport per request) on 127.0.0.1. Tools:
 * `read_file` (readOnlyHint), `delete_file` (destructiveHint), `slow` (sleeps `ms`), `broken`
 * (answers isError). It counts list and call requests so tests can see what Baton sent.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface TestMcpServer {
  readonly url: string;
  /** Each tools/call: name and arguments, in order. */
  readonly calls: Array<{ readonly name: string; readonly args: Record<string, unknown> }>;
  /** tools/list requests received. */
  lists: number;
  /** Headers of the last request. */
  lastHeaders: http.IncomingHttpHeaders;
  close(): Promise<void>;
}

function build(state: TestMcpServer): McpServer {
  const server = new McpServer({ name: 'files', version: '1.0.0' });
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
  server.registerTool(
    'read_file',
    { description: 'Reads a file', inputSchema: { path: z.string() }, annotations: { readOnlyHint: true } },
    async (args) => {
      state.calls.push({ name: 'read_file', args });
      return text(`contents of ${args.path}`);
    },
  );
  server.registerTool(
    'delete_file',
    { description: 'Deletes a file', inputSchema: { path: z.string() }, annotations: { destructiveHint: true } },
    async (args) => {
      state.calls.push({ name: 'delete_file', args });
      return text(`deleted ${args.path}`);
    },
  );
  server.registerTool('slow', { description: 'Takes its time', inputSchema: { ms: z.number() } }, async (args) => {
    state.calls.push({ name: 'slow', args });
    await new Promise((resolve) => setTimeout(resolve, args.ms));
    return text('finally');
  });
  server.registerTool('broken', { description: 'Always fails', inputSchema: {} }, async () => {
    state.calls.push({ name: 'broken', args: {} });
    return { isError: true, content: [{ type: 'text' as const, text: 'disk on fire' }] };
  });
  return server;
}

export async function startMcpServer(): Promise<TestMcpServer> {
  let httpServer: http.Server | undefined;
  const state: TestMcpServer = {
    url: '',
    calls: [],
    lists: 0,
    lastHeaders: {},
    close: () =>
      new Promise<void>((resolve) => {
        httpServer!.closeAllConnections();
        httpServer!.close(() => resolve());
      }),
  };
  httpServer = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body: unknown = chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString());
        state.lastHeaders = req.headers;
        if ((body as { method?: string } | undefined)?.method === 'tools/list') state.lists += 1;
        const server = build(state);
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res, body);
      })();
    });
  });
  await new Promise<void>((resolve) => httpServer!.listen(0, '127.0.0.1', resolve));
  const port = (httpServer.address() as AddressInfo).port;
  return Object.assign(state, { url: `http://127.0.0.1:${port}/mcp` });
}
