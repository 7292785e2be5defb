/**
 * A loopback port held by this test that drops every connection at once: an OpenSearch that
 * is down, without the race of a port that was free a moment ago (another process could
 * take that one and answer).
 */
import net from 'node:net';

export interface DeadEndpoint {
  url: string;
  close(): Promise<void>;
}

export async function startDeadEndpoint(): Promise<DeadEndpoint> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
