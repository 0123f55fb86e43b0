// The bare limit of Node's HTTP and WebSocket stack, run as a child process of the benchmark:
//   ANY  /bytes/<n>       reads the request body, answers a JSON body of exactly n bytes
//   POST /broadcast/<n>   sends one text frame of exactly n bytes to every socket on /ws; answers
//                         {"sent": count} once every frame is handed to the kernel
//   GET  /ws              WebSocket upgrade, no authentication
// No framework, no database, no authentication: what is left of a request when Skein's work is
// taken out. Prints "BARE_READY <port>" when listening; exits when its stdin closes.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

const bodies = new Map<number, Buffer>();

/** A JSON object of exactly n bytes (at least 10). */
function bodyOf(n: number): Buffer {
  let body = bodies.get(n);
  if (!body) {
    body = Buffer.from(`{"pad":"${'x'.repeat(Math.max(0, n - 10))}"}`);
    bodies.set(n, body);
  }
  return body;
}

const sockets = new Set<WebSocket>();
const wss = new WebSocketServer({ noServer: true });
let seq = 0;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const [, kind, size] = (req.url ?? '').split('/');
    const n = Number(size);
    if (kind === 'bytes' && Number.isFinite(n)) {
      const body = bodyOf(n);
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': body.length,
      });
      res.end(body);
      return;
    }
    if (kind === 'broadcast' && Number.isFinite(n)) {
      seq++;
      const head = `{"type":"notification","seq":${seq},"pad":"`;
      const frame = `${head}${'x'.repeat(Math.max(0, n - head.length - 2))}"}`;
      const open = [...sockets];
      let pending = open.length;
      const done = () => {
        const body = JSON.stringify({ sent: open.length, seq });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
      };
      if (pending === 0) return done();
      for (const ws of open) ws.send(frame, () => --pending === 0 && done());
      return;
    }
    res.writeHead(404).end();
  });
});

server.on('upgrade', (req, socket, head) => {
  if (req.url !== '/ws') {
    socket.destroy();
    return;
  }
  wss.handleUpgrade(req, socket, head, (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('error', () => sockets.delete(ws));
  });
});

server.listen(0, '127.0.0.1', () => {
  console.log(`BARE_READY ${(server.address() as AddressInfo).port}`);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
