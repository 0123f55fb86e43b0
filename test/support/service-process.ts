// Runs the whole service as a separate process (`node --import tsx src/start.ts`), as production
// does, so tests can kill it with SIGKILL and start it again on the same data directory.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
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

export async function startServiceProcess(
  env: Record<string, string>,
  readyTimeoutMs = 240_000,
): Promise<ServiceProcess> {
  const port = env.PORT;
  if (!port || port === '0') throw new Error('startServiceProcess needs a fixed PORT');
  // Jest's NODE_OPTIONS (--experimental-vm-modules) is not the service's business.
  const inherited = { ...process.env };
  delete inherited.NODE_OPTIONS;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/start.ts'], {
    cwd: PROJECT_ROOT,
    env: { ...inherited, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
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
