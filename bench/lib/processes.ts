// The processes of a benchmark run: the Skein service (`node scripts/start.mjs`, what `npm start`
// runs: compiled JavaScript, built first when stale) and the bare server, each a child of the bench process; free ports; and a
// child's resident memory read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/platform/paths.js';

export interface Child {
  url: string;
  pid: number;
  /** The last lines the process wrote, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** VmRSS of a process in MiB (Linux). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) / 1024;
}

const running = new Set<ChildProcess>();

/** Kills every child still running (on a crash or Ctrl-C of the bench). */
export function killChildren(): void {
  for (const child of running) child.kill('SIGKILL');
}

function track(child: ChildProcess): { output: () => string; exited: Promise<void> } {
  running.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running.delete(child);
      resolve();
    }),
  );
  return { output: () => output, exited };
}

function stopper(child: ChildProcess, exited: Promise<void>): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.kill('SIGTERM');
    await exited;
    clearTimeout(timer);
  };
}

/** The environment minus NODE_OPTIONS (e.g. a heap size given to the bench is not the children's). */
function withoutNodeOptions(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return env;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts the service and waits for /readyz. */
export async function startService(env: Record<string, string>, timeoutMs = 180_000): Promise<Child> {
  const inherited = withoutNodeOptions();
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: PROJECT_ROOT,
    env: { ...inherited, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { output, exited } = track(child);
  const url = `http://127.0.0.1:${env.PORT}`;
  const deadline = Date.now() + timeoutMs;
  let ended = false;
  void exited.then(() => (ended = true));
  for (;;) {
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (ended) throw new Error(`the service exited before it was ready:\n${output()}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service was not ready in ${timeoutMs} ms:\n${output()}`);
    }
    await sleep(200);
  }
  return { url, pid: child.pid!, output, stop: stopper(child, exited) };
}

/** Starts bench/lib/bare-server.ts and waits for its port. */
export async function startBareServer(): Promise<Child> {
  const inherited = withoutNodeOptions();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('bench', 'lib', 'bare-server.ts')], {
    cwd: PROJECT_ROOT,
    env: inherited,
    // stdin is its lifeline: it exits when the bench does.
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const { output, exited } = track(child);
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the bare server did not start:\n${output()}`)), 30_000);
    child.stdout?.on('data', () => {
      const match = /BARE_READY (\d+)/.exec(output());
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    void exited.then(() => reject(new Error(`the bare server exited:\n${output()}`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid!, output, stop: stopper(child, exited) };
}
