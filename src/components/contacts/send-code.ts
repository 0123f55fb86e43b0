// Words of the messages that carry codes, and the hand-over to the mail or SMS transport.
import type { AppContext } from '../../platform/context.js';
import { messagingFor } from '../../platform/messaging/messaging.js';
import type { ChallengePurpose } from './challenge-codes.js';

function lifetime(seconds: number): string {
  if (seconds < 120) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  return `${Math.floor(seconds / 60)} minutes`;
}

/** Sends a code; rejects with DeliveryFailed when the transport could not take it. */
export async function sendCode(
  ctx: AppContext,
  message: { channel: 'email' | 'phone'; to: string; code: string; purpose: ChallengePurpose },
): Promise<void> {
  const { mail, sms } = messagingFor(ctx);
  const valid = lifetime(ctx.config.verification.codeTtlSeconds);
  const { to, code } = message;
  if (message.channel === 'phone') {
    await sms.send({ to, code, body: `Skein code: ${code} (valid for ${valid}). Do not share it.` });
    return;
  }
  if (message.purpose === 'reset') {
    await mail.send({
      to,
      code,
      subject: 'Reset your Skein password',
      body:
        `Your Skein password reset code is ${code}. It is valid for ${valid}.\n\n` +
        'If you did not ask to reset your password, ignore this message: your password stays as it is.',
    });
    return;
  }
  if (message.purpose === 'signin') {
    await mail.send({
      to,
      code,
      subject: 'Your Skein sign-in code',
      body:
        `Your Skein sign-in code is ${code}. It is valid for ${valid} and works once.\n\n` +
        'If you did not ask to sign in, ignore this message: nobody gets in without the code.',
    });
    return;
  }
  await mail.send({
    to,
    code,
    subject: 'Your Skein verification code',
    body:
      `Your Skein verification code is ${code}. It is valid for ${valid}.\n\n` +
      'If you did not ask for it, ignore this message.',
  });
}
