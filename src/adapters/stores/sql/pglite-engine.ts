/** PGlite and the local socket server postgres.js connects to, started on the calling thread. */
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EngineWhere {
  readonly dataDir: string | null;
  readonly schema: string;
  readonly socketPath: string | null;
}

/** PGlite and the socket server postgres.js connects to, wherever they run. */
export interface EmbeddedEngine {
  readonly path: string | null;
  readonly port: number | null;
  stop(): Promise<void>;
}

/** On this thread: every statement runs on the event loop. */
export async function startEngineHere(where: EngineWhere): Promise<EmbeddedEngine> {
  const db = where.dataDir === null ? await PGlite.create() : await PGlite.create({ dataDir: where.dataDir });
  // Every socket connection shares this one session, so setting search_path here holds for all.
  const schema = quoteIdent(where.schema);
  await db.exec(`create schema if not exists ${schema}; set search_path to ${schema}`);
  const server = new PGLiteSocketServer({
    db,
    ...(where.socketPath !== null ? { path: where.socketPath } : { host: '127.0.0.1', port: 0 }),
    // Must be >= the pool size or postgres.js connections are refused.
    maxConnections: 1,
  });
  try {
    await server.start();
  } catch (err) {
    await db.close();
    throw err;
  }
  return {
    path: where.socketPath,
    port: where.socketPath === null ? Number(server.getServerConn().split(':').pop()) : null,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}


function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
