// The Twilio SMS transport (SKEIN_SMS_TRANSPORT=twilio) against a loopback server that speaks
// Twilio's Messages API (test/support/twilio-server.ts): through the service's HTTP API, a phone
// code arrives at "Twilio" with the account's credentials and verifies the phone, and a refused
// number is a 500 in the contract's shape that verifies nothing; then the transport alone, for
// what the API cannot show (Messaging Service, wrong token, time-out, odd answers, its log line).
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import type { TwilioSettings } from '../../src/platform/config.js';
import { TwilioSmsTransport } from '../../src/platform/messaging/twilio-sms-transport.js';
import { DeliveryFailed, type SmsMessage } from '../../src/platform/messaging/transports.js';
import { registerUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { startTwilioServer, type TwilioFake } from '../support/twilio-server.js';
import { freshDataDir, outboxLines, uniquePhone, type VerificationBody } from './contact-helpers.js';

const FROM = '+15005550006';
let twilio: TwilioFake;
let api: TestServer;
const dataDir = freshDataDir();
beforeAll(async () => {
  twilio = await startTwilioServer();
  api = await startTestServer({
    SKEIN_DATA_DIR: dataDir,
    SKEIN_SMS_TRANSPORT: 'twilio',
    SKEIN_TWILIO_API_URL: twilio.url,
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_FROM: FROM,
  });
});
afterAll(async () => {
  await api.close();
  await twilio.close();
});

function codeIn(body: string | null): string {
  const match = /Skein code: (\d{6})/.exec(body ?? '');
  if (!match) throw new Error(`no code in SMS: ${body}`);
  return match[1]!;
}

describe('Twilio SMS transport through the API', () => {
  it('when a user asks for a phone code, then it reaches Twilio with the account credentials and verifies the phone', async () => {
    const user = await registerUser(api);
    const phone = uniquePhone();
    const asked = await api.request('POST', '/v1/auth/contacts/phone/request', {
      token: user.token,
      body: { phone },
    });
    expect(asked.status).toBe(200);
    const sms = await twilio.waitForSms(phone);
    expect(sms).toMatchObject({
      username: twilio.accountSid,
      contentType: 'application/x-www-form-urlencoded;charset=UTF-8',
      to: phone,
      from: FROM,
      messagingServiceSid: null,
    });
    const code = codeIn(sms.body);
    expect(JSON.stringify(asked.body)).not.toContain(code);
    expect(outboxLines(dataDir).filter((line) => line.to === phone)).toEqual([]);

    const verified = await api.request<VerificationBody>('POST', '/v1/auth/contacts/phone/verify', {
      token: user.token,
      body: { phone, code },
    });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ verified: true, kind: 'phone', value: phone });
    const me = await api.request<{ scopes: string[] }>('GET', '/v1/users/me', { token: user.token });
    expect(me.body.scopes).toContain('messages.write');
  });

  it('when Twilio refuses the number, then 500 delivery_failed and nothing is verified', async () => {
    const user = await registerUser(api);
    const phone = uniquePhone();
    twilio.refuse(phone);
    const asked = await api.request('POST', '/v1/auth/contacts/phone/request', {
      token: user.token,
      body: { phone },
    });
    expect(asked.status).toBe(500);
    expect(asked.body).toEqual({ code: 'delivery_failed', detail: expect.any(String) });
    const attempts = twilio.received.filter((sms) => sms.to === phone);
    expect(attempts.map((sms) => sms.answered)).toEqual([400]);
    expect(JSON.stringify(asked.body)).not.toContain(codeIn(attempts[0]!.body));
    expect(outboxLines(dataDir).filter((line) => line.to === phone)).toEqual([]);

    const verify = await api.request('POST', '/v1/auth/contacts/phone/verify', {
      token: user.token,
      body: { phone, code: codeIn(attempts[0]!.body) },
    });
    expect(verify.status).toBe(404);
    const me = await api.request<{ contacts: unknown[]; scopes: string[] }>('GET', '/v1/users/me', {
      token: user.token,
    });
    expect(me.body.contacts).toEqual([]);
    expect(me.body.scopes).toEqual(['messages.read']);
  });
});

describe('TwilioSmsTransport', () => {
  /** A transport on the fake with a logger whose lines the test can read. */
  function transport(overrides: Partial<TwilioSettings> = {}, timeoutMs?: number) {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const settings: TwilioSettings = {
      apiUrl: twilio.url,
      accountSid: twilio.accountSid,
      authToken: twilio.authToken,
      sender: { from: FROM },
      ...overrides,
    };
    const sms = new TwilioSmsTransport(settings, pino({ level: 'info' }, sink), { timeoutMs });
    return { sms, lines };
  }

  const message = (to: string, code = '314159'): SmsMessage => ({
    to,
    code,
    body: `Skein code: ${code} (valid for 10 minutes). Do not share it.`,
  });

  /** The DeliveryFailed `promise` rejects with (and a failure when it resolves or rejects otherwise). */
  async function failure(promise: Promise<void>): Promise<DeliveryFailed> {
    const error = await promise.then(
      () => new Error('the send succeeded'),
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(DeliveryFailed);
    return error as DeliveryFailed;
  }

  it('when the SMS is handed over, then the log line has the number and Message SID but not the code or token', async () => {
    const { sms, lines } = transport();
    const phone = uniquePhone();
    await sms.send(message(phone));
    const received = await twilio.waitForSms(phone);
    expect(lines).toHaveLength(1);
    const logged = JSON.parse(lines[0]!) as { msg: string; sms: unknown };
    expect(logged.msg).toBe('SMS handed to Twilio');
    expect(logged.sms).toEqual({ to: phone, sid: received.sid, status: 'queued' });
    expect(lines[0]).not.toContain('314159');
    expect(lines[0]).not.toContain(twilio.authToken);
  });

  it('when a Messaging Service is configured, then it goes as MessagingServiceSid without From', async () => {
    const service = `MG${'ab'.repeat(16)}`;
    const { sms, lines } = transport({ sender: { messagingServiceSid: service } });
    const phone = uniquePhone();
    await sms.send(message(phone));
    const received = await twilio.waitForSms(phone);
    expect(received).toMatchObject({ from: null, messagingServiceSid: service, to: phone });
    expect(JSON.parse(lines[0]!)).toMatchObject({ sms: { status: 'accepted' } });
  });

  it('when the auth token is wrong, then DeliveryFailed names Twilio’s 401 20003 and not the token', async () => {
    const { sms, lines } = transport({ authToken: 'not-the-token' });
    const error = await failure(sms.send(message(uniquePhone())));
    expect(error.message).toBe('Twilio refused the SMS (HTTP 401 20003): Authenticate');
    expect(error.message).not.toContain('not-the-token');
    expect(lines).toEqual([]);
  });

  it('when Twilio refuses the number, then DeliveryFailed carries its code and message', async () => {
    const { sms } = transport();
    const phone = uniquePhone();
    twilio.refuse(phone);
    const error = await failure(sms.send(message(phone)));
    expect(error.message).toBe("Twilio refused the SMS (HTTP 400 21211): Invalid 'To' Phone Number");
  });

  it('when a refusal quotes the message body, then the code is blanked in the error', async () => {
    const { sms } = transport();
    twilio.answerNext({
      status: 400,
      contentType: 'application/json',
      body: JSON.stringify({
        code: 30007,
        message: 'Filtered: Skein code: 271828 (valid for 10 minutes)',
        more_info: 'https://www.twilio.com/docs/errors/30007',
        status: 400,
      }),
    });
    const error = await failure(sms.send(message(uniquePhone(), '271828')));
    expect(error.message).toContain('HTTP 400 30007');
    expect(error.message).toContain('Skein code: ******');
    expect(error.message).not.toContain('271828');
  });

  it('when the answer is not a Twilio answer, then DeliveryFailed', async () => {
    const { sms } = transport();
    twilio.answerNext({ status: 200, contentType: 'text/html', body: '<html>captive portal</html>' });
    expect((await failure(sms.send(message(uniquePhone())))).message).toBe(
      'Twilio answered HTTP 200 without a message resource',
    );
    twilio.answerNext({ status: 201, contentType: 'application/json', body: `"${'x'.repeat(100_000)}"` });
    expect((await failure(sms.send(message(uniquePhone())))).message).toBe(
      'The SMS request to Twilio failed: answer larger than 65536 bytes',
    );
    twilio.answerNext({ status: 503, contentType: 'text/html', body: '<html>busy</html>' });
    expect((await failure(sms.send(message(uniquePhone())))).message).toBe(
      'Twilio refused the SMS (HTTP 503)',
    );
  });

  it('when the created message is already failed, then DeliveryFailed', async () => {
    const { sms } = transport();
    twilio.answerNext({
      status: 201,
      contentType: 'application/json',
      body: JSON.stringify({ sid: `SM${'cd'.repeat(16)}`, status: 'failed', error_code: 30006 }),
    });
    expect((await failure(sms.send(message(uniquePhone())))).message).toContain(
      'marked it failed (error 30006)',
    );
  });

  it('when Twilio does not answer in time, then DeliveryFailed after the time-out', async () => {
    const { sms } = transport({}, 300);
    twilio.answerNext({ hang: true });
    const started = Date.now();
    const error = await failure(sms.send(message(uniquePhone())));
    expect(error.message).toBe('The SMS request to Twilio failed: no answer in time');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('when nothing listens at the address, then DeliveryFailed', async () => {
    const gone = await startTwilioServer();
    await gone.close();
    const { sms } = transport({ apiUrl: gone.url });
    const error = await failure(sms.send(message(uniquePhone())));
    expect(error.message).toMatch(/^The SMS request to Twilio failed: fetch failed: .*ECONNREFUSED/);
  });
});
