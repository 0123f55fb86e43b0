// Shared by the contact tests: unique addresses, reading codes from the `log` transport's outbox
// file, and small HTTP receivers that play webhook endpoints for the echo protocol.
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomInt } from 'node:crypto';
import { uniqueTag } from '../support/factories.js';
import type { TestServer } from '../support/test-server.js';

export interface ChallengeBody {
  challenge_id: string;
  expires_at: string;
  sent: boolean;
}

export interface VerificationBody {
  verified: boolean;
  kind: string;
  value: string;
  secret?: string;
}

export interface OutboxLine {
  to: string;
  kind: 'email' | 'sms';
  subject: string | null;
  body: string;
  code: string | null;
}

/** A data directory of the test file's own, so its outbox.jsonl holds only its messages. */
export function freshDataDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'skein-contacts-'));
}

export const uniqueEmail = (prefix = 'mail') => `${uniqueTag(prefix)}@example.test`;

/** A valid US number in the 555-01xx range kept for fiction, plus random digits elsewhere. */
export function uniquePhone(): string {
  return `+1212555${String(randomInt(0, 10_000)).padStart(4, '0')}`;
}

export function outboxLines(dataDir: string): OutboxLine[] {
  let text: string;
  try {
    text = readFileSync(path.join(dataDir, 'outbox.jsonl'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as OutboxLine);
}

/** The outbox lines to `to`, waiting until there are at least `count` (reset codes are sent after the answer). */
export async function waitForOutbox(dataDir: string, to: string, count = 1): Promise<OutboxLine[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lines = outboxLines(dataDir).filter((line) => line.to === to);
    if (lines.length >= count) return lines;
    if (Date.now() > deadline) throw new Error(`fewer than ${count} outbox lines to ${to}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The code of the latest message to `to` (waiting for the `count`-th one). */
export async function latestCode(dataDir: string, to: string, count = 1): Promise<string> {
  const lines = await waitForOutbox(dataDir, to, count);
  return lines[lines.length - 1]!.code!;
}

/** A six-digit code other than `code`. */
export function otherCode(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}

/** Asks for an email code and verifies it; answers the verification body. */
export async function verifyEmail(
  api: TestServer,
  dataDir: string,
  token: string,
  email: string,
): Promise<VerificationBody> {
  const before = outboxLines(dataDir).filter((line) => line.to === email).length;
  const asked = await api.request('POST', '/v1/auth/contacts/email/request', { token, body: { email } });
  if (asked.status !== 200)
    throw new Error(`email request failed: ${asked.status} ${JSON.stringify(asked.body)}`);
  const code = await latestCode(dataDir, email, before + 1);
  const res = await api.request<VerificationBody>('POST', '/v1/auth/contacts/email/verify', {
    token,
    body: { email, code },
  });
  if (res.status !== 200) throw new Error(`email verify failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export interface ReceivedRequest {
  method: string;
  url: string;
  contentType: string | undefined;
  body: string;
}

export type EchoBehaviour =
  /** Echoes the nonce of a JSON POST as {"nonce"}; anything else 405. */
  | 'json'
  /** Echoes a text/plain POST body; anything else 415. */
  | 'text'
  /** Echoes ?nonce= of a GET; POSTs answer 405. */
  | 'get'
  /** Answers 200 "ok" to everything. */
  | 'wrong'
  /** Answers 500 to everything. */
  | 'error';

export interface EchoReceiver {
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** An HTTP server on 127.0.0.1 playing a webhook endpoint that answers the nonce as told. */
export async function startEchoReceiver(behaviour: EchoBehaviour): Promise<EchoReceiver> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const contentType = req.headers['content-type'];
      requests.push({ method: req.method ?? '', url: req.url ?? '', contentType, body });
      const send = (status: number, text: string, type = 'text/plain') =>
        res.writeHead(status, { 'content-type': type }).end(text);
      const query = new URL(req.url ?? '/', 'http://receiver').searchParams;
      switch (behaviour) {
        case 'json':
          if (req.method === 'POST' && contentType?.startsWith('application/json')) {
            const nonce = (JSON.parse(body) as { nonce: string }).nonce;
            return send(200, JSON.stringify({ nonce }), 'application/json');
          }
          return send(405, 'no');
        case 'text':
          if (req.method === 'POST' && contentType?.startsWith('text/plain')) return send(200, body);
          return send(415, 'no');
        case 'get':
          if (req.method === 'GET') return send(200, query.get('nonce') ?? '');
          return send(405, 'no');
        case 'wrong':
          return send(200, 'ok');
        case 'error':
          return send(500, 'broken');
      }
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
