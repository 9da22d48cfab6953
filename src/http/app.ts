/**
 * The uWS application: every declared route on uWS's native router, and one fallback that
 * answers 405 (with Allow) when the path exists under other methods, 404 otherwise. find-my-way
 * is consulted only on that fallback, to know which methods a path has.
 */
import FindMyWay from 'find-my-way';
import uWS from 'uWebSockets.js';
import { methodNotAllowed, routeNotFound, type ApiError } from '../domain/errors.js';
import { nextRequestId } from './request-id.js';
import { writeResponse } from './respond.js';
import { routeHandler, type PipelineDeps } from './pipeline.js';
import type { HttpMethod, Route } from './route.js';
import type { SseSink } from '../ports/event-sink.js';

const WIRE_METHOD: Record<HttpMethod, string> = { get: 'GET', post: 'POST', put: 'PUT', patch: 'PATCH', del: 'DELETE' };

export interface HttpServer {
  /** Resolves with the bound port once listening (SO_REUSEPORT: workers share the port). */
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting connections; open responses finish on their own. */
  stopListening(): void;
  /**
   * Ends every open event stream with a final comment (clients reconnect elsewhere and resume
   * with Last-Event-ID); returns how many there were.
   */
  endStreams(comment: string): number;
  /** Closes every connection at once. */
  closeAll(): void;
}

export function createHttpServer(routes: readonly Route[], pipelineDeps: PipelineDeps): HttpServer {
  const openStreams = pipelineDeps.openStreams ?? new Set<SseSink>();
  const deps: PipelineDeps = { ...pipelineDeps, openStreams };
  const app = uWS.App();
  const index = FindMyWay();
  for (const route of routes) {
    const wire = WIRE_METHOD[route.method];
    index.on(wire as never, route.path, () => undefined);
    app[route.method](route.path, routeHandler(route, deps));
  }
  app.any('/*', (res, req) => {
    const method = req.getCaseSensitiveMethod();
    const path = req.getUrl();
    const allowed = Object.values(WIRE_METHOD).filter((m) => index.find(m as never, path) !== null);
    const error: ApiError = allowed.length > 0 ? methodNotAllowed(method, allowed) : routeNotFound(method, path);
    const requestId = nextRequestId();
    // The body of an unknown route is never read, so the connection cannot be reused safely.
    const hasBody = req.getHeader('content-length') !== '' || req.getHeader('transfer-encoding') !== '';
    const state = { aborted: false, responded: false };
    res.onAborted(() => {
      state.aborted = true;
    });
    writeResponse(
      res,
      state,
      error.status,
      { 'X-Request-Id': requestId, 'Content-Type': 'application/json; charset=utf-8', ...error.headers },
      JSON.stringify({ error: error.code, message: error.message, ...error.extra, requestId }),
      hasBody && req.getHeader('content-length') !== '0',
    );
  });

  let listenSocket: uWS.us_listen_socket | null = null;
  return {
    listen(host, port) {
      return new Promise((resolve, reject) => {
        app.listen(host, port, (socket) => {
          if (socket === false) {
            reject(new Error(`could not listen on ${host}:${port}`));
            return;
          }
          listenSocket = socket;
          resolve(uWS.us_socket_local_port(socket));
        });
      });
    },
    stopListening() {
      if (listenSocket !== null) {
        uWS.us_listen_socket_close(listenSocket);
        listenSocket = null;
      }
    },
    endStreams(comment) {
      const streams = [...openStreams];
      for (const sink of streams) {
        sink.comment(comment);
        sink.end();
      }
      return streams.length;
    },
    closeAll() {
      this.stopListening();
      app.close();
    },
  };
}
