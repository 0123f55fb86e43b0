// The shapes of outgoing mail and SMS and of the transports that deliver them.

export interface MailMessage {
  to: string;
  subject: string;
  body: string;
  /** The code the body carries, when there is one: kept apart so logs can leave it out. */
  code?: string;
}

export interface SmsMessage {
  to: string;
  body: string;
  code?: string;
}

export interface MailTransport {
  /** Resolves once the message is handed over; rejects with DeliveryFailed otherwise. */
  send(message: MailMessage): Promise<void>;
}

export interface SmsTransport {
  send(message: SmsMessage): Promise<void>;
}

/** The message could not be handed over (SMTP refused, unreachable, the outbox not writable). */
export class DeliveryFailed extends Error {
  override name = 'DeliveryFailed';
}

/** The message with its code blanked out, for log lines. */
export function maskCode<T extends { body: string; code?: string }>(message: T): T {
  if (!message.code) return message;
  return { ...message, body: message.body.split(message.code).join('******'), code: '******' };
}
