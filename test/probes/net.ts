/**
 * Loopback endpoints for probe tests: a port nobody listens on (connect is refused at once) and a
 * "black hole" server that accepts connections and never says a word (the client must time out).
 */
import { createServer, type Server, type Socket } from 'node:net';

/** A port that was just free and is closed again: connecting there is refused. */
export async function refusedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', resolve);
  });
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

export interface SilentServer {
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  close(): Promise<void>;
}

/** Accepts every connection, reads and drops what it is sent, never answers. */
export async function silentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const srv: Server = createServer((s) => {
    accepted++;
    sockets.add(s);
    s.on('data', () => undefined);
    s.on('error', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  return {
    port,
    get accepted() {
      return accepted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        srv.close(() => resolve());
      }),
  };
}

/** Milliseconds an async call took, with its result. */
export async function timed<T>(f: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const t0 = performance.now();
  const result = await f();
  return { result, ms: performance.now() - t0 };
}
