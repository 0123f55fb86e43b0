// Runs the whole service as a separate process (`node --import tsx src/start.ts`, or `npm start` as
// an operator does), so tests can signal it, kill it with SIGKILL and start it again on the same
// data directory, and find every process it left.
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { PROJECT_ROOT } from '../../src/platform/paths.js';

export interface ServiceProcess {
  url: string;
  pid: number;
  /** Resolves with the exit code (null when killed by a signal) once the process has ended. */
  exited: Promise<number | null>;
  /** The last lines the process wrote, for failure messages. */
  output(): string;
  kill(signal?: NodeJS.Signals): void;
}

/**
 * `tsx` runs src/start.ts in one Node process. `npm start` runs npm, which runs the service (building
 * dist/ first when it is stale); its pid is npm's, and npm leads a process group of its own, which a
 * test signals as a terminal's Ctrl-C does (`process.kill(-pid, 'SIGINT')`).
 */
export type Launch = 'tsx' | 'npm start';

export interface StartOptions {
  /** 240 s unless given. */
  readyTimeoutMs?: number;
  /** `tsx` unless given. */
  launch?: Launch;
  /** Sees all the output so far each time more comes, also before the service is ready. */
  onOutput?: (output: string) => void;
}

export async function startServiceProcess(
  env: Record<string, string>,
  { readyTimeoutMs = 240_000, launch = 'tsx', onOutput }: StartOptions = {},
): Promise<ServiceProcess> {
  const port = env.PORT;
  if (!port || port === '0') throw new Error('startServiceProcess needs a fixed PORT');
  // Jest's NODE_OPTIONS (--experimental-vm-modules) is not the service's business.
  const inherited = { ...process.env };
  delete inherited.NODE_OPTIONS;
  const options: SpawnOptions = {
    cwd: PROJECT_ROOT,
    // No warm-up unless a test asks for it (SKEIN_WARMUP_SECONDS): it is tested on its own, and it would
    // add its seconds to each of the suite's many starts.
    env: { ...inherited, HOST: '127.0.0.1', LOG_LEVEL: 'warn', SKEIN_WARMUP_SECONDS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  };
  const child: ChildProcess =
    launch === 'tsx'
      ? spawn(process.execPath, ['--import', 'tsx', 'src/start.ts'], options)
      : spawn('npm', ['start'], { ...options, detached: true });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
    onOutput?.(output);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;

  const deadline = Date.now() + readyTimeoutMs;
  let ended = false;
  void exited.then(() => (ended = true));
  while (!(await isReady(url))) {
    if (ended) throw new Error(`the service exited before it was ready:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service was not ready in ${readyTimeoutMs} ms:\n${output}`);
    }
    await sleep(250);
  }
  return {
    url,
    pid: child.pid!,
    exited,
    output: () => output,
    kill: (signal = 'SIGTERM') => child.kill(signal),
  };
}

async function isReady(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/readyz`)).status === 200;
  } catch {
    return false;
  }
}

/** The pids of a process's direct children with the given command name (e.g. the embedded Neo4j's java). */
export function childPids(pid: number, command: string): number[] {
  const result = spawnSync('ps', ['-o', 'pid=,comm=', '--ppid', String(pid)], { encoding: 'utf8' });
  return result.stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, comm]) => comm === command)
    .map(([childPid]) => Number(childPid));
}

export interface LiveProcess {
  pid: number;
  /** The command name (/proc/<pid>/comm: `node`, `java`, `npm start`). */
  command: string;
}

/**
 * Every live process whose environment holds SKEIN_DATA_DIR=<dataDir>: what a service started with
 * that data folder runs (npm, the shell, Node, the embedded Neo4j's JVM inherit it). Linux (/proc);
 * zombies, which hold nothing, are left out.
 */
export function processesWithDataDir(dataDir: string): LiveProcess[] {
  const wanted = `SKEIN_DATA_DIR=${dataDir}`;
  const found: LiveProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(wanted)) continue;
      if (isZombie(Number(entry))) continue;
      found.push({ pid: Number(entry), command: readFileSync(`/proc/${entry}/comm`, 'utf8').trim() });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** Whether a process exists and is more than a zombie (killed, not yet reaped by its parent). */
export function isRunning(pid: number): boolean {
  try {
    return !isZombie(pid);
  } catch {
    return false;
  }
}

function isZombie(pid: number): boolean {
  // The state follows the command name, which is in parentheses and may hold spaces.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

/**
 * Waits until `done()` holds, polling every 100 ms; answers the milliseconds it took, or throws
 * with `what` and `state()` after `timeoutMs`.
 */
export async function waitUntil(
  done: () => boolean,
  timeoutMs: number,
  what: string,
  state: () => unknown = () => undefined,
): Promise<number> {
  const started = Date.now();
  while (!done()) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`${what}: not after ${timeoutMs} ms (${JSON.stringify(state())})`);
    await sleep(100);
  }
  return Date.now() - started;
}

/** Waits until nothing accepts connections on the port (a stopped Neo4j has released its store). */
export async function waitForPortClosed(port: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (await portOpen(port)) {
    if (Date.now() > deadline) throw new Error(`port ${port} still open after ${timeoutMs} ms`);
    await sleep(250);
  }
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
