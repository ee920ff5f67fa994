// Starts an in-process PostgreSQL (PGlite) with the pgvector extension behind a local socket, so
// the store's pg pool can reach a PostgreSQL that has pgvector where the system cluster has none.
// PGlite runs one connection at a time: open the store on it with poolSize 1.
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { vector } from '@electric-sql/pglite/vector';

export interface PgliteServer {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  databaseUrl: string;
  /** Stops the socket server and closes the database; a second call does nothing. */
  stop(): Promise<void>;
}

export async function startPgliteServer(): Promise<PgliteServer> {
  const database = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db: database, port: 0, host: '127.0.0.1' });
  try {
    await server.start();
  } catch (error) {
    await database.close();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    databaseUrl: `postgres://postgres@${server.getServerConn()}/postgres`,
    stop: () =>
      (stopping ??= (async () => {
        try {
          await server.stop();
        } finally {
          await database.close();
        }
      })()),
  };
}
