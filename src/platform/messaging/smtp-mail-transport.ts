// The `smtp` mail transport: nodemailer to SMTP_URL (smtp:// or smtps://, credentials in the URL).
// Time-outs are short because a request waits for the hand-over: a dead relay answers 500 in
// seconds instead of holding the client for nodemailer's default two minutes.
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from '../logger.js';
import { DeliveryFailed, maskCode, type MailMessage, type MailTransport } from './transports.js';

const TIMEOUT_MS = 10_000;

export class SmtpMailTransport implements MailTransport {
  private readonly transporter: Transporter;

  constructor(
    smtpUrl: string,
    from: string,
    private readonly log: Logger,
  ) {
    this.transporter = nodemailer.createTransport(
      {
        url: smtpUrl,
        connectionTimeout: TIMEOUT_MS,
        greetingTimeout: TIMEOUT_MS,
        socketTimeout: TIMEOUT_MS,
      },
      { from },
    );
  }

  async send(message: MailMessage): Promise<void> {
    try {
      await this.transporter.sendMail({ to: message.to, subject: message.subject, text: message.body });
    } catch (error) {
      throw new DeliveryFailed(`The mail server did not take the message: ${(error as Error).message}`);
    }
    const shown = maskCode(message);
    this.log.info({ mail: { to: shown.to, subject: shown.subject } }, 'email handed to the SMTP server');
  }
}
