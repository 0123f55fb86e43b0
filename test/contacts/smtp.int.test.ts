// The SMTP mail transport (SKEIN_MAIL_TRANSPORT=smtp) against a real SMTP server process on
// loopback (test/support/smtp-server.ts): codes arrive by SMTP and verify; a refused message is a
// 500 in the contract's shape and verifies nothing.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { registerUser } from '../support/factories.js';
import { startSmtpServer, type SmtpCapture } from '../support/smtp-server.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { freshDataDir, outboxLines, uniqueEmail } from './contact-helpers.js';

let smtp: SmtpCapture;
let api: TestServer;
const dataDir = freshDataDir();
beforeAll(async () => {
  smtp = await startSmtpServer();
  api = await startTestServer({
    SKEIN_DATA_DIR: dataDir,
    SKEIN_MAIL_TRANSPORT: 'smtp',
    SMTP_URL: smtp.url,
    SKEIN_MAIL_FROM: 'Skein Test <skein@example.test>',
  });
});
afterAll(async () => {
  await api.close();
  await smtp.close();
});

function codeIn(raw: string): string {
  const match = /code is (\d{6})/.exec(raw);
  if (!match) throw new Error(`no code in mail:\n${raw}`);
  return match[1]!;
}

describe('SMTP transport', () => {
  it('when a user asks for an email code, then it arrives by SMTP and verifies the email', async () => {
    const user = await registerUser(api);
    const email = uniqueEmail();
    const asked = await api.request('POST', '/v1/auth/contacts/email/request', {
      token: user.token,
      body: { email },
    });
    expect(asked.status).toBe(200);
    const mail = await smtp.waitForMail(email);
    expect(mail.from).toBe('skein@example.test');
    expect(mail.raw).toMatch(/^Subject: Your Skein verification code/m);
    expect(mail.raw).toMatch(/^From: Skein Test <skein@example.test>/m);
    const code = codeIn(mail.raw);
    expect(JSON.stringify(asked.body)).not.toContain(code);
    expect(outboxLines(dataDir).filter((line) => line.to === email)).toEqual([]);

    const verified = await api.request('POST', '/v1/auth/contacts/email/verify', {
      token: user.token,
      body: { email, code },
    });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ verified: true, kind: 'email', value: email });
  });

  it('when the SMTP server refuses the message, then 500 delivery_failed and nothing is verified', async () => {
    const user = await registerUser(api);
    const email = uniqueEmail('reject');
    const asked = await api.request('POST', '/v1/auth/contacts/email/request', {
      token: user.token,
      body: { email },
    });
    expect(asked.status).toBe(500);
    expect(asked.body).toEqual({ code: 'delivery_failed', detail: expect.any(String) });
    const verify = await api.request('POST', '/v1/auth/contacts/email/verify', {
      token: user.token,
      body: { email, code: '123456' },
    });
    expect(verify.status).toBe(404);
    const me = await api.request<{ contacts: unknown[]; scopes: string[] }>('GET', '/v1/users/me', {
      token: user.token,
    });
    expect(me.body.contacts).toEqual([]);
    expect(me.body.scopes).toEqual(['messages.read']);
  });

  it('when a password reset is asked for, then the code arrives by SMTP and resets the password', async () => {
    const user = await registerUser(api);
    const email = uniqueEmail();
    await api.request('POST', '/v1/auth/contacts/email/request', { token: user.token, body: { email } });
    const first = await smtp.waitForMail(email);
    await api.request('POST', '/v1/auth/contacts/email/verify', {
      token: user.token,
      body: { email, code: codeIn(first.raw) },
    });
    const asked = await api.request('POST', '/v1/auth/password/reset/request', {
      body: { user_tag: user.tag },
    });
    expect(asked.status).toBe(200);
    const deadline = Date.now() + 10_000;
    while (smtp.mails.filter((mail) => mail.to.includes(email)).length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const resetMail = smtp.mails.filter((mail) => mail.to.includes(email))[1]!;
    expect(resetMail.raw).toMatch(/^Subject: Reset your Skein password/m);
    const done = await api.request('POST', '/v1/auth/password/reset', {
      body: { user_tag: user.tag, code: codeIn(resetMail.raw), new_password: 'a-brand-new-passphrase-77' },
    });
    expect(done.status).toBe(200);
  });
});
