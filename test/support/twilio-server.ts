// A stand-in for Twilio's Programmable Messaging REST API on 127.0.0.1, for the `twilio` SMS
// transport tests: it speaks the documented request and answer formats of "create a Message"
// (POST /2010-04-01/Accounts/{AccountSid}/Messages.json, HTTP Basic auth with the Account SID and
// auth token, a form body with To, Body and From or MessagingServiceSid) and answers as Twilio
// does: 201 with a Message resource, or 4xx with {code, message, more_info, status}. It records
// every create request that passed authentication, and can be told to refuse a number or to
// answer the next request some other way (a hang, a page that is not Twilio's).
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Arrivals } from './arrivals.js';

/** A Twilio error answer: the HTTP status and the body's code and message. */
export interface TwilioError {
  status: number;
  code: number;
  message: string;
}

export const INVALID_TO_NUMBER: TwilioError = {
  status: 400,
  code: 21211,
  message: "Invalid 'To' Phone Number",
};

export interface ReceivedSms {
  /** The Basic auth user name (the Account SID). */
  username: string;
  contentType: string | undefined;
  to: string | null;
  from: string | null;
  messagingServiceSid: string | null;
  body: string | null;
  /** The status this server answered (201, or the error's). */
  answered: number;
  /** The Message SID answered with a 201, otherwise null. */
  sid: string | null;
}

/** How to answer the next request instead of playing Twilio. */
export type NextAnswer =
  /** Keep the request open, never answering (until close). */
  | { hang: true }
  /** Answer this status and raw body, whatever was asked. */
  | { status: number; body: string; contentType: string };

export interface TwilioFake {
  /** For SKEIN_TWILIO_API_URL: http://127.0.0.1:<port>. */
  url: string;
  accountSid: string;
  authToken: string;
  received: ReceivedSms[];
  /** Refuse every message to `to` with `error` (a 400 21211 unless told otherwise). */
  refuse(to: string, error?: TwilioError): void;
  answerNext(answer: NextAnswer): void;
  /** The first accepted message to `to`, waiting for it up to `timeoutMs`. */
  waitForSms(to: string, timeoutMs?: number): Promise<ReceivedSms>;
  close(): Promise<void>;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** Twilio's dates are RFC 2822 with a numeric zone: "Tue, 26 Jul 2016 12:50:07 +0000". */
const twilioDate = (date: Date) => date.toUTCString().replace(/GMT$/, '+0000');

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** user and password of an `Authorization: Basic` header, or null. */
function basicCredentials(header: string | undefined): { user: string; password: string } | null {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export async function startTwilioServer(
  credentials: { accountSid?: string; authToken?: string } = {},
): Promise<TwilioFake> {
  const accountSid = credentials.accountSid ?? `AC${hex(16)}`;
  const authToken = credentials.authToken ?? hex(16);
  const messagesPath = `/2010-04-01/Accounts/${accountSid}/Messages.json`;
  const received = new Arrivals<ReceivedSms>();
  const refused = new Map<string, TwilioError>();
  const nextAnswers: NextAnswer[] = [];

  const sendJson = (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) =>
    res
      .writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
      .end(JSON.stringify(body));
  const sendError = (res: ServerResponse, error: TwilioError, headers: Record<string, string> = {}) =>
    sendJson(
      res,
      error.status,
      {
        code: error.code,
        message: error.message,
        more_info: `https://www.twilio.com/docs/errors/${error.code}`,
        status: error.status,
      },
      headers,
    );

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const text = await readBody(req);
    const next = nextAnswers.shift();
    if (next) {
      if ('hang' in next) return;
      res.writeHead(next.status, { 'content-type': next.contentType }).end(next.body);
      return;
    }
    const auth = basicCredentials(req.headers.authorization);
    if (!auth || auth.user !== accountSid || auth.password !== authToken) {
      sendError(
        res,
        { status: 401, code: 20003, message: 'Authenticate' },
        { 'www-authenticate': 'Basic realm="Twilio API"' },
      );
      return;
    }
    if (req.url !== messagesPath) {
      sendError(res, {
        status: 404,
        code: 20404,
        message: `The requested resource ${req.url ?? ''} was not found`,
      });
      return;
    }
    if (req.method !== 'POST') {
      sendError(res, { status: 405, code: 20004, message: 'Method not allowed' });
      return;
    }

    // Twilio reads parameters from a form body only; any other body leaves them all missing.
    const contentType = req.headers['content-type'];
    const form = contentType?.startsWith('application/x-www-form-urlencoded')
      ? new URLSearchParams(text)
      : new URLSearchParams();
    const sms: ReceivedSms = {
      username: auth.user,
      contentType,
      to: form.get('To'),
      from: form.get('From'),
      messagingServiceSid: form.get('MessagingServiceSid'),
      body: form.get('Body'),
      answered: 0,
      sid: null,
    };
    const error: TwilioError | undefined =
      sms.to === null
        ? { status: 400, code: 21604, message: "A 'To' phone number is required." }
        : sms.body === null
          ? { status: 400, code: 21602, message: 'Message body is required.' }
          : sms.from === null && sms.messagingServiceSid === null
            ? {
                status: 400,
                code: 21603,
                message: "A 'From' or 'MessagingServiceSid' parameter is required to send a message",
              }
            : !/^\+[1-9]\d{1,14}$/.test(sms.to)
              ? INVALID_TO_NUMBER
              : refused.get(sms.to);
    received.add(sms);
    if (error) {
      sms.answered = error.status;
      sendError(res, error);
      return;
    }

    const sid = `SM${hex(16)}`;
    const now = twilioDate(new Date());
    sms.answered = 201;
    sms.sid = sid;
    // With a Messaging Service, Twilio picks the sender later: the answer has no From yet and the
    // message is "accepted" rather than "queued".
    const viaService = sms.messagingServiceSid !== null;
    sendJson(res, 201, {
      account_sid: accountSid,
      api_version: '2010-04-01',
      body: sms.body,
      date_created: now,
      date_sent: null,
      date_updated: now,
      direction: 'outbound-api',
      error_code: null,
      error_message: null,
      from: viaService ? null : sms.from,
      messaging_service_sid: sms.messagingServiceSid,
      num_media: '0',
      num_segments: viaService ? '0' : '1',
      price: null,
      price_unit: 'USD',
      sid,
      status: viaService ? 'accepted' : 'queued',
      subresource_uris: { media: `/2010-04-01/Accounts/${accountSid}/Messages/${sid}/Media.json` },
      to: sms.to,
      uri: `/2010-04-01/Accounts/${accountSid}/Messages/${sid}.json`,
    });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  const waitForSms = (to: string, timeoutMs?: number): Promise<ReceivedSms> =>
    received.waitFor((sms) => sms.to === to && sms.answered === 201, `SMS to ${to}`, timeoutMs);

  return {
    url: `http://127.0.0.1:${port}`,
    accountSid,
    authToken,
    received: received.items,
    refuse: (to, error = INVALID_TO_NUMBER) => {
      refused.set(to, error);
    },
    answerNext: (answer) => {
      nextAnswers.push(answer);
    },
    waitForSms,
    close: () => {
      // A hung request holds its connection open; close would wait for it forever.
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
