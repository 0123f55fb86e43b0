// Starts test/support/smtp-server-child.ts (a real SMTP server on loopback) in a child process and
// collects what it receives, so SMTP transport tests go through a real SMTP conversation.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { PROJECT_ROOT } from '../../src/platform/paths.js';
import { Arrivals } from './arrivals.js';

export interface ReceivedMail {
  from: string | null;
  to: string[];
  /** The whole message as received (headers and body). */
  raw: string;
}

export interface SmtpCapture {
  /** smtp://127.0.0.1:<port>, for SMTP_URL. */
  url: string;
  mails: ReceivedMail[];
  /** The first mail to `address`, waiting for it up to `timeoutMs`. */
  waitForMail(address: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

export async function startSmtpServer(): Promise<SmtpCapture> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(PROJECT_ROOT, 'test/support/smtp-server-child.ts')],
    { cwd: PROJECT_ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const mails = new Arrivals<ReceivedMail>();
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const message = JSON.parse(line) as { event: string; port?: number } & ReceivedMail;
      if (message.event === 'listening') resolve(message.port!);
      if (message.event === 'mail') {
        mails.add({ from: message.from, to: message.to, raw: message.raw });
      }
    });
    child.once('exit', (code) => reject(new Error(`SMTP server exited early (${code})`)));
    child.once('error', reject);
  });

  const waitForMail = (address: string, timeoutMs?: number): Promise<ReceivedMail> =>
    mails.waitFor((mail) => mail.to.includes(address), `mail to ${address}`, timeoutMs);

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails: mails.items,
    waitForMail,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin!.end();
      await exited;
    },
  };
}
