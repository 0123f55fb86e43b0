// The processes of a benchmark run: the Skein service (`node scripts/start.mjs`, what `npm start`
// runs: compiled JavaScript, built first when stale), the bare server and the fan-out's listener
// process, each a child of the bench process; free ports; and a child's resident memory read from /proc.
// The scale-out workload adds a redis-server on loopback and reads processes' CPU time from /proc.
import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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

/** Clock ticks per second, the unit of utime and stime in /proc/<pid>/stat. */
const CLOCK_TICKS = (() => {
  const answer = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const ticks = Number(answer.stdout?.trim());
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
})();

/**
 * CPU time a process has used so far, user and system, all its threads (Linux), in milliseconds.
 * Counted in clock ticks (10 ms here), so a measurement needs seconds of work to be read to a few percent.
 */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 (utime) and 15 (stime) of proc(5); the slice starts at field 3.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS;
}

/** The pids of a process's direct children with the given command name (e.g. the embedded Neo4j's java). */
export function childPids(pid: number, command: string): number[] {
  const result = spawnSync('ps', ['-o', 'pid=,comm=', '--ppid', String(pid)], { encoding: 'utf8' });
  return (result.stdout ?? '')
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, comm]) => comm === command)
    .map(([childPid]) => Number(childPid));
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
  // BENCH_SERVICE_NODE_ARGS: node flags for the service alone (say `--cpu-prof --cpu-prof-dir=/tmp/p`).
  const nodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, 'scripts/start.mjs'], {
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

/** Runs a TypeScript file of bench/lib as a child process. */
function spawnBenchScript(script: string, stdio: StdioOptions) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('bench', 'lib', script)], {
    cwd: PROJECT_ROOT,
    env: withoutNodeOptions(),
    stdio,
  });
  return { child, ...track(child) };
}

/** Starts bench/lib/bare-server.ts and waits for its port. */
export async function startBareServer(): Promise<Child> {
  // stdin is its lifeline: it exits when the bench does.
  const { child, output, exited } = spawnBenchScript('bare-server.ts', ['pipe', 'pipe', 'pipe']);
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

/** Starts bench/lib/listener-process.ts, which lib/fan-out-listeners.ts drives over the IPC channel. */
export function startListenerProcess(): {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
} {
  const { child, output, exited } = spawnBenchScript('listener-process.ts', [
    'ignore',
    'pipe',
    'pipe',
    'ipc',
  ]);
  return { child, output, stop: stopper(child, exited) };
}

/** Where the Debian package puts it (what CI's apt-get installs); otherwise the PATH's. */
function redisServerBinary(): string | null {
  if (existsSync('/usr/bin/redis-server')) return '/usr/bin/redis-server';
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' });
  const binary = found.stdout?.trim();
  return found.status === 0 && binary ? binary : null;
}

/**
 * Starts redis-server on a free loopback port with no persistence (the scale-out workload's pub/sub
 * and shared rate limits). Throws when the binary is missing or the server does not come up.
 */
export async function startRedis(): Promise<Child> {
  const binary = redisServerBinary();
  if (!binary) throw new Error('redis-server is not installed (apt-get install redis-server)');
  const port = await freePort();
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const { output, exited } = track(child);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output()}`)), 15_000);
    child.stdout?.on('data', () => {
      if (output().includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited:\n${output()}`));
    });
  });
  return { url: `redis://127.0.0.1:${port}`, pid: child.pid!, output, stop: stopper(child, exited) };
}
