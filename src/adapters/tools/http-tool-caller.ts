/**
 * Calling a workflow tool: POST `{ input }` as JSON to the tool's URL through the guarded
 * outbound dispatcher (URL policy at connect time), with a deadline and a response size cap.
 * Always resolves: a failure becomes an error string the agent receives in `toolResults`.
 */
import type { ToolCaller, ToolOutcome } from '../../ports/tools.js';
import { request, type Dispatcher } from 'undici';
import { checkUrlSyntax, isUrlNotAllowedError } from '../../domain/url-policy.js';
import type { WorkflowTool } from '../../domain/workflows.js';
import { WORKFLOW_DEFAULTS } from '../../domain/workflows.js';



export interface ToolCallerOptions {
  readonly dispatcher: Dispatcher;
  readonly allowPrivate: boolean;
  /** Response body cap; default 1 MiB. */
  readonly maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 1024 * 1024;

export function createToolCaller(options: ToolCallerOptions): ToolCaller {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  return {
    async call(tool, input, signal, traceparent) {
      const check = checkUrlSyntax(tool.url, { allowPrivate: options.allowPrivate });
      if (!check.ok) return { ok: false, error: `url not allowed: ${check.message}` };
      const timeoutMs = tool.timeoutMs ?? WORKFLOW_DEFAULTS.toolTimeoutMs;
      const deadline = AbortSignal.timeout(timeoutMs);
      try {
        const res = await request(check.url, {
          dispatcher: options.dispatcher,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            'user-agent': 'baton-tools/1',
            ...(traceparent === undefined ? {} : { traceparent }),
          },
          body: JSON.stringify({ input }),
          signal: AbortSignal.any([signal, deadline]),
        });
        const text = await readCapped(res.body, maxBytes);
        if (text === null) return { ok: false, error: `response larger than ${maxBytes} bytes` };
        const parsed = parseJson(text);
        if (res.statusCode < 200 || res.statusCode > 299) {
          return { ok: false, error: `tool answered HTTP ${res.statusCode}${text === '' ? '' : `: ${text.slice(0, 500)}`}` };
        }
        return { ok: true, result: parsed };
      } catch (error) {
        if (deadline.aborted) return { ok: false, error: `timeout after ${timeoutMs} ms` };
        if (signal.aborted) return { ok: false, error: 'cancelled' };
        if (isUrlNotAllowedError(error)) return { ok: false, error: `url not allowed: ${error.message}` };
        const code = (error as { code?: unknown }).code;
        return { ok: false, error: `tool unreachable${typeof code === 'string' ? ` (${code})` : ''}` };
      }
    },
  };
}

/** JSON when it parses, the text itself otherwise (a tool may answer plain text). */
function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The body as text, or null once it passes `maxBytes` (reading stops there). */
async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      body.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
