// Starts test/support/smtp-server-child.ts (a real SMTP server on loopback) in a child process and
// collects what it receives, so SMTP transport tests go through a real SMTP conversation.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { PROJECT_ROOT } from '../../src/platform/paths.js';

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
  const mails: ReceivedMail[] = [];
  const waiters: (() => void)[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const message = JSON.parse(line) as { event: string; port?: number } & ReceivedMail;
      if (message.event === 'listening') resolve(message.port!);
      if (message.event === 'mail') {
        mails.push({ from: message.from, to: message.to, raw: message.raw });
        for (const wake of waiters.splice(0)) wake();
      }
    });
    child.once('exit', (code) => reject(new Error(`SMTP server exited early (${code})`)));
    child.once('error', reject);
  });

  const waitForMail = async (address: string, timeoutMs = 10_000): Promise<ReceivedMail> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = mails.find((mail) => mail.to.includes(address));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no mail to ${address} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitForMail,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin!.end();
      await exited;
    },
  };
}
