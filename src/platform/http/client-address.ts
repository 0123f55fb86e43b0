// The client's address for requests that Express does not see (WebSocket upgrades), by the same rule
// as Express's req.ip: the socket's peer, or with SKEIN_TRUST_PROXY the first X-Forwarded-For address.
import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';

export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  return proxyAddr(req, () => trustProxy) || 'unknown';
}
