/**
 * Calling a workflow step's MCP servers (Streamable HTTP) with the SDK's client: `tools/list` and
 * `tools/call`, each on its own short connection (initialize, request, close) so nothing is held
 * between an agent's rounds. Requests go through the guarded fetch (URL policy at connect time,
 * body cap). Always resolves: a failure becomes an error string, as for HTTP tools.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isUrlNotAllowedError } from '../../domain/url-policy.js';
import { MCP_DEFAULT_TIMEOUT_MS, type WorkflowMcpServer } from '../../domain/workflows.js';
import type { GuardedFetch } from '../../ports/guarded-fetch.js';
import type { McpCaller, McpListOutcome, McpServerTool } from '../../ports/mcp.js';
import type { ToolOutcome } from '../../ports/tools.js';
import { VERSION } from '../../support/version.js';

/** Tools kept from one server; pages past this are not read. */
export const MAX_LISTED_TOOLS = 64;
const MAX_LIST_PAGES = 8;
const MAX_DESCRIPTION = 4_000;
/** An input schema larger than this (as JSON) is replaced by `{ type: 'object' }`. */
const MAX_SCHEMA_CHARS = 16_384;
const MAX_ERROR_TEXT = 1_000;

export function createMcpCaller(fetch: GuardedFetch): McpCaller {
  return {
    async list(server, signal) {
      return withClient(fetch, server, signal, undefined, async (client, options) => {
        const tools: McpServerTool[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < MAX_LIST_PAGES && tools.length < MAX_LISTED_TOOLS; page++) {
          const answer = await client.listTools(cursor === undefined ? {} : { cursor }, options);
          for (const tool of answer.tools) {
            if (tools.length >= MAX_LISTED_TOOLS) break;
            tools.push(listedTool(tool));
          }
          cursor = answer.nextCursor;
          if (cursor === undefined) break;
        }
        return { ok: true, tools };
      });
    },
    async call(server, tool, input, signal, traceparent) {
      return withClient(fetch, server, signal, traceparent, async (client, options) => {
        const result = await client.callTool({ name: tool, arguments: { ...input } }, undefined, options);
        const content = Array.isArray(result.content) ? (result.content as ReadonlyArray<Record<string, unknown>>) : [];
        if (result.isError === true) return { ok: false, error: `tool reported an error: ${clip(textOf(content) ?? JSON.stringify(content))}` };
        if (result.structuredContent !== undefined) return { ok: true, result: result.structuredContent };
        return { ok: true, result: textOf(content) ?? content };
      });
    },
  };
}

type Outcome = McpListOutcome | ToolOutcome;

async function withClient<T extends Outcome>(
  fetch: GuardedFetch,
  server: WorkflowMcpServer,
  signal: AbortSignal,
  traceparent: string | undefined,
  work: (client: Client, options: { signal: AbortSignal; timeout: number }) => Promise<T>,
): Promise<T | { readonly ok: false; readonly error: string }> {
  const timeoutMs = server.timeoutMs ?? MCP_DEFAULT_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const both = AbortSignal.any([signal, deadline]);
  const headers: Record<string, string> = { 'user-agent': `baton-mcp/${VERSION}`, ...server.headers };
  if (traceparent !== undefined) headers.traceparent = traceparent;
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    fetch: (url, init) => fetch(url, { ...init, signal: init?.signal == null ? both : AbortSignal.any([init.signal, both]) }),
    requestInit: { headers },
  });
  const client = new Client({ name: 'baton', version: VERSION });
  const options = { signal: both, timeout: timeoutMs };
  try {
    await client.connect(transport, options);
    return await work(client, options);
  } catch (error) {
    if (deadline.aborted) return { ok: false, error: `timeout after ${timeoutMs} ms` };
    if (signal.aborted) return { ok: false, error: 'cancelled' };
    return { ok: false, error: describe(error) };
  } finally {
    await client.close().catch(() => undefined);
  }
}

function listedTool(tool: { name: string; description?: string; inputSchema: unknown; annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean } }): McpServerTool {
  const schema = tool.inputSchema as Record<string, unknown>;
  const annotations = tool.annotations ?? {};
  return {
    name: tool.name,
    description: (tool.description ?? '').slice(0, MAX_DESCRIPTION),
    inputSchema: JSON.stringify(schema).length <= MAX_SCHEMA_CHARS ? schema : { type: 'object' },
    annotations: {
      ...(annotations.readOnlyHint === undefined ? {} : { readOnlyHint: annotations.readOnlyHint }),
      ...(annotations.destructiveHint === undefined ? {} : { destructiveHint: annotations.destructiveHint }),
    },
  };
}

/** The text parts joined, when every part is text; otherwise null (the parts go as they are). */
function textOf(content: ReadonlyArray<Record<string, unknown>>): string | null {
  if (content.length === 0 || !content.every((part) => part.type === 'text' && typeof part.text === 'string')) return null;
  return content.map((part) => part.text as string).join('\n');
}

/** Why a list or call failed, in the words an agent (and its owner) can act on. */
function describe(error: unknown): string {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (isUrlNotAllowedError(e)) return `url not allowed: ${e.message}`;
    const code = (e as { code?: unknown }).code;
    if (code === 'ERR_RESPONSE_TOO_LARGE') return (e as Error).message;
    if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)) return `MCP server unreachable (${code})`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return clip(message);
}

function clip(text: string): string {
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}…` : text;
}
