/**
 * Answers one POST /a2a: the SDK's v0.3 JSON-RPC transport handler does the protocol
 * (validation, method dispatch, v0.3 wire shapes, error envelopes) over Baton's handler for the
 * calling key. A streaming method answers Server-Sent Events, each `data:` one JSON-RPC
 * response; its first update is awaited before answering, so a refused request (unknown task,
 * missing permission) is a plain JSON-RPC error rather than a stream that fails at once.
 */
import { ServerCallContext } from '@a2a-js/sdk/server';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import type { KeyPrincipal } from '../../services/auth/principal.js';
import { json, type Reply } from '../route.js';
import type { SseSink } from '../../ports/event-sink.js';
import type { Logger } from '../../support/log.js';
import { BatonA2aHandler, type A2aServices } from './handler.js';

export interface A2aServerServices extends A2aServices {
  readonly logger: Logger;
}

const HEARTBEAT_MS = 15_000;

export async function answerA2aPost(principal: KeyPrincipal, services: A2aServerServices, body: unknown, requestId: string, signal: AbortSignal): Promise<Reply> {
  // The stream outlives the handler's return: it stops when the client leaves or the sink closes.
  const stop = new AbortController();
  signal.addEventListener('abort', () => stop.abort(), { once: true });
  const handler = new BatonA2aHandler(principal, services, stop.signal);
  const transport = new LegacyJsonRpcTransportHandler(handler);
  const rpcId = idOf(body);
  const answer = await transport.handle(body as Record<string, unknown>, new ServerCallContext());
  if (!isAsyncIterator(answer)) {
    logInternal(services.logger, answer, requestId);
    return json(200, answer);
  }
  let first: IteratorResult<unknown>;
  try {
    first = await answer.next();
  } catch (error) {
    return json(200, errorEnvelope(rpcId, error, services.logger, requestId));
  }
  if (first.done === true) {
    stop.abort();
    return { kind: 'empty', status: 204 };
  }
  return {
    kind: 'stream',
    start(sink: SseSink) {
      sink.onClose(() => stop.abort());
      const heartbeat = setInterval(() => sink.comment('ping'), HEARTBEAT_MS);
      void (async () => {
        try {
          sink.send({ event: 'message', data: JSON.stringify(first.value) });
          for (;;) {
            const next = await answer.next();
            if (next.done === true || sink.closed) break;
            sink.send({ event: 'message', data: JSON.stringify(next.value) });
          }
        } catch (error) {
          sink.send({ event: 'message', data: JSON.stringify(errorEnvelope(rpcId, error, services.logger, requestId)) });
        } finally {
          clearInterval(heartbeat);
          stop.abort();
          await answer.return(undefined).catch(() => undefined);
          sink.end();
        }
      })();
    },
  };
}

function idOf(body: unknown): string | number | null {
  const id = typeof body === 'object' && body !== null ? (body as { id?: unknown }).id : null;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

function isAsyncIterator(value: unknown): value is AsyncGenerator<unknown, void, undefined> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

function errorEnvelope(id: string | number | null, error: unknown, logger: Logger, requestId: string): unknown {
  const envelope = { jsonrpc: '2.0', id, error: LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error) };
  logInternal(logger, envelope, requestId, error);
  return envelope;
}

/**
 * An internal error's message may be a store's or a bug's: it is logged here and the client gets
 * a generic one naming the request.
 */
function logInternal(logger: Logger, envelope: unknown, requestId: string, cause?: unknown): void {
  const error = (envelope as { error?: { code?: number; message?: string } }).error;
  if (error?.code !== -32603) return;
  logger.error({ err: cause, requestId, detail: error.message }, 'A2A request failed');
  error.message = `Internal error (request ${requestId})`;
}
