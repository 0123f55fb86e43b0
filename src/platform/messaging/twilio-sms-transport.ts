// The `twilio` SMS transport: one request to Twilio's Programmable Messaging REST API per code,
// POST {api}/2010-04-01/Accounts/{AccountSid}/Messages.json with HTTP Basic auth (Account SID and
// auth token) and a form body (To, Body, and From or MessagingServiceSid). Twilio answers 201 with
// the new Message resource, or 4xx/5xx with {code, message, more_info, status}.
//
// Plain fetch rather than the `twilio` package: this is the only call Skein makes, and the package
// can only be pointed at another host (the tests' loopback server) by replacing its HTTP client.
// The time-out is short for the same reason as SMTP's: the request that asked for the code waits.
import type { TwilioSettings } from '../config.js';
import type { Logger } from '../logger.js';
import { DeliveryFailed, maskCode, type SmsMessage, type SmsTransport } from './transports.js';

const TIMEOUT_MS = 10_000;
/** A Message resource is about 1 KiB; anything far larger is not Twilio answering, and is not read whole. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** Message statuses that already mean the SMS will not arrive. */
const FAILED_STATUSES = new Set(['failed', 'undelivered']);

export interface TwilioSmsOptions {
  /** How long the whole exchange (connect, answer and body) may take; tests shorten it. */
  timeoutMs?: number;
}

export class TwilioSmsTransport implements SmsTransport {
  private readonly endpoint: string;
  private readonly authorization: string;
  private readonly timeoutMs: number;

  constructor(
    private readonly settings: TwilioSettings,
    private readonly log: Logger,
    options: TwilioSmsOptions = {},
  ) {
    const account = encodeURIComponent(settings.accountSid);
    this.endpoint = `${settings.apiUrl}/2010-04-01/Accounts/${account}/Messages.json`;
    const credentials = Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString('base64');
    this.authorization = `Basic ${credentials}`;
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  }

  async send(message: SmsMessage): Promise<void> {
    const form = new URLSearchParams({ To: message.to, Body: message.body });
    const sender = this.settings.sender;
    if ('from' in sender) form.set('From', sender.from);
    else form.set('MessagingServiceSid', sender.messagingServiceSid);

    // Whatever Twilio says goes into the DeliveryFailed message, and that message is logged: an
    // answer that quotes the body must not carry the code into the log.
    const blank = (text: string) => maskCode({ body: text, code: message.code }).body;
    let status: number;
    let answer: unknown;
    try {
      const response = await fetch(this.endpoint, {
        method: 'POST',
        // fetch sets the form's content type (application/x-www-form-urlencoded;charset=UTF-8).
        headers: { authorization: this.authorization, accept: 'application/json' },
        body: form,
        // Twilio does not redirect this call; a redirect means the address is wrong, and following
        // it would hand the credentials to whoever answered.
        redirect: 'error',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = response.status;
      answer = parseJson(await readCapped(response));
    } catch (error) {
      throw new DeliveryFailed(`The SMS request to Twilio failed: ${blank(reason(error))}`);
    }

    const resource = isRecord(answer) ? answer : {};
    if (status < 200 || status > 299) {
      // Twilio's error shape: {code, message, more_info, status}; a proxy's page has none of it.
      const code = typeof resource.code === 'number' ? ` ${resource.code}` : '';
      const text = typeof resource.message === 'string' ? `: ${resource.message.slice(0, 300)}` : '';
      throw new DeliveryFailed(blank(`Twilio refused the SMS (HTTP ${status}${code})${text}`));
    }
    if (typeof resource.sid !== 'string') {
      throw new DeliveryFailed(`Twilio answered HTTP ${status} without a message resource`);
    }
    const state = typeof resource.status === 'string' ? resource.status : 'unknown';
    if (FAILED_STATUSES.has(state)) {
      const code = typeof resource.error_code === 'number' ? ` (error ${resource.error_code})` : '';
      throw new DeliveryFailed(`Twilio took the SMS ${resource.sid} but marked it ${state}${code}`);
    }
    // The sid finds the message in Twilio's console and logs; the body (with the code) stays out.
    this.log.info({ sms: { to: message.to, sid: resource.sid, status: state } }, 'SMS handed to Twilio');
  }
}

/** The answer's text, refusing one longer than MAX_ANSWER_BYTES instead of buffering it. */
async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  // A fetch body is a byte stream; Node's typings leave its chunk type open.
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw new Error(`answer larger than ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** fetch wraps network errors as "fetch failed"; the cause (ECONNREFUSED, time-out) is the useful part. */
function reason(error: unknown): string {
  // Read by shape, not instanceof: fetch's errors may come from another realm (a vm context, as
  // under Jest), where they are not instances of this realm's Error.
  const { name, message, cause } = fields(error);
  if (name === 'TimeoutError') return 'no answer in time';
  const detail = fields(cause).message;
  return `${message ?? String(error)}${detail ? `: ${detail}` : ''}`;
}

function fields(value: unknown): { name?: string; message?: string; cause?: unknown } {
  if (!isRecord(value)) return {};
  return {
    name: typeof value.name === 'string' ? value.name : undefined,
    message: typeof value.message === 'string' ? value.message : undefined,
    cause: value.cause,
  };
}
