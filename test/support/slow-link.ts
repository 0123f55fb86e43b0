// A TCP relay that holds everything the server sends for a fixed time before passing it on, to
// stand for a slow network between one service instance and Redis: that instance hears the other
// instances' rounds late, as it does under load, while its own requests still go through.
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface SlowLink {
  /** The relay's address in the target's URL scheme, e.g. redis://127.0.0.1:port. */
  url: string;
  close(): Promise<void>;
}

export async function startSlowLink(targetUrl: string, delayMs: number): Promise<SlowLink> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      setTimeout(() => {
        if (!client.destroyed) client.write(chunk);
      }, delayMs);
    });
    upstream.on('end', () => setTimeout(() => client.end(), delayMs));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${target.protocol}//127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
