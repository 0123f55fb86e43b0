// How codes leave the service. Use cases hand a message to a transport and never learn where it
// goes; the transport only delivers (it decides nothing). Mail: `log` (default, the outbox file) or
// `smtp` (nodemailer to SMTP_URL). SMS: `log` (default, the same outbox file) or `twilio` (Twilio's
// Programmable Messaging REST API).
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { LogMailTransport, LogSmsTransport, OutboxFile } from './outbox-file.js';
import { SmtpMailTransport } from './smtp-mail-transport.js';
import { TwilioSmsTransport } from './twilio-sms-transport.js';
import type { MailTransport, SmsTransport } from './transports.js';

export interface Messaging {
  mail: MailTransport;
  sms: SmsTransport;
}

export function createMessaging(config: Config, log: Logger): Messaging {
  const outbox = new OutboxFile(config.dataDir, log);
  const mail: MailTransport =
    config.messaging.mailTransport === 'smtp'
      ? new SmtpMailTransport(config.messaging.smtpUrl!, config.messaging.mailFrom, log)
      : new LogMailTransport(outbox);
  const sms: SmsTransport =
    config.messaging.smsTransport === 'twilio'
      ? new TwilioSmsTransport(config.messaging.twilio!, log)
      : new LogSmsTransport(outbox);
  return { mail, sms };
}

// The app context has no messaging slot, so each context gets its transports on first use and keeps
// them (the SMTP and Twilio transports hold their settings; the outbox file holds nothing open).
const perConfig = new WeakMap<Config, Messaging>();

export function messagingFor(ctx: { config: Config; log: Logger }): Messaging {
  let messaging = perConfig.get(ctx.config);
  if (!messaging) {
    messaging = createMessaging(ctx.config, ctx.log);
    perConfig.set(ctx.config, messaging);
  }
  return messaging;
}
