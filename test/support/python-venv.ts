// The Python SDK's virtualenv (sdks/python/.venv) for the tests that run Python, made by
// sdks/python/setup-venv.sh when missing or stale, so that `npm test` needs no step by hand. Each
// jest worker runs the script once (it returns at once when the virtualenv matches pyproject.toml);
// a lock directory keeps two workers from building it at the same time. Without python3 or its venv
// module the tests fail at once, naming the command that installs them.
// Tests that drive Skein with other Python clients (the official `openai` package lists
// GET /v1/models) add PYTHON_TEST_PACKAGES, pinned, to the same virtualenv through
// pythonTestVenv(), under the same lock and with a stamp of their own, so it too installs once and
// again only when the list changes (or the virtualenv is made anew).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/platform/paths.js';

export const PYTHON_SDK_DIR = path.join(PROJECT_ROOT, 'sdks/python');
const VENV_PYTHON = path.join(PYTHON_SDK_DIR, '.venv/bin/python');
const LOCK_DIR = path.join(PYTHON_SDK_DIR, '.venv.lock');
const INSTALL_HINT = 'apt-get install python3-venv';

/** Python packages the tests use beside the SDK's own, pinned so a clean machine gets the same. */
export const PYTHON_TEST_PACKAGES = ['openai==3.57.0'];
const TEST_PACKAGES_STAMP = path.join(PYTHON_SDK_DIR, '.venv/.test-packages');

let ready: Promise<string> | undefined;
let withTestPackages: Promise<string> | undefined;

/** The virtualenv's python, once sdks/python/.venv holds the SDK (editable) and its test tools. */
export function pythonSdkVenv(): Promise<string> {
  ready ??= makeVenv();
  return ready;
}

/** The virtualenv's python, once it also holds PYTHON_TEST_PACKAGES. */
export function pythonTestVenv(): Promise<string> {
  withTestPackages ??= addTestPackages();
  return withTestPackages;
}

/** Throws at once, naming the command to run, unless python3 (3.11+) with venv and ensurepip is there. */
export function assertPythonWithVenv(): void {
  const check = spawnSync(
    'python3',
    ['-c', 'import sys, ensurepip, venv; sys.exit(0 if sys.version_info >= (3, 11) else 2)'],
    { encoding: 'utf8' },
  );
  if (check.error) {
    throw new Error(`python3 is not installed; the Python SDK's tests need it. Run: ${INSTALL_HINT}`);
  }
  if (check.status === 2) {
    throw new Error('The Python SDK needs Python 3.11 or later as python3.');
  }
  if (check.status !== 0) {
    throw new Error(`python3 has no venv module; the Python SDK's tests need it. Run: ${INSTALL_HINT}`);
  }
}

async function makeVenv(): Promise<string> {
  assertPythonWithVenv();
  await withLock(async () => {
    const result = await runCommand('bash', ['setup-venv.sh'], { cwd: PYTHON_SDK_DIR });
    if (result.code !== 0) {
      throw new Error(`sdks/python/setup-venv.sh failed (exit ${result.code}):\n${result.output}`);
    }
  });
  return VENV_PYTHON;
}

async function addTestPackages(): Promise<string> {
  const python = await pythonSdkVenv();
  const wanted = PYTHON_TEST_PACKAGES.join('\n');
  const installed = () => {
    try {
      return readFileSync(TEST_PACKAGES_STAMP, 'utf8') === wanted;
    } catch {
      return false;
    }
  };
  if (installed()) return python;
  await withLock(async () => {
    if (installed()) return;
    const result = await runCommand(python, [
      '-m',
      'pip',
      'install',
      '-q',
      '--disable-pip-version-check',
      ...PYTHON_TEST_PACKAGES,
    ]);
    if (result.code !== 0) {
      throw new Error(
        `pip install ${PYTHON_TEST_PACKAGES.join(' ')} into sdks/python/.venv failed (exit ${result.code}):\n${result.output}`,
      );
    }
    writeFileSync(TEST_PACKAGES_STAMP, wanted);
  });
  return python;
}

/** Runs `work` holding the lock directory; a lock whose process has ended is taken over. */
async function withLock(work: () => Promise<void>, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(LOCK_DIR);
      writeFileSync(path.join(LOCK_DIR, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!lockHolderAlive()) {
        rmSync(LOCK_DIR, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline)
        throw new Error(`${LOCK_DIR} was held for ${timeoutMs} ms`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    await work();
  } finally {
    rmSync(LOCK_DIR, { recursive: true, force: true });
  }
}

function lockHolderAlive(): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(LOCK_DIR, 'pid'), 'utf8'));
  } catch {
    return true; // just made, its pid not written yet
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface CommandResult {
  code: number | null;
  output: string;
}

/** Runs a command without blocking this process (a service under test may run in it). */
export function runCommand(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? PROJECT_ROOT,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** A Python program running in its own process, such as an example bot. */
export interface PythonProcess {
  /** Resolves with the exit code (null when ended by a signal). */
  exited: Promise<number | null>;
  /** Everything it wrote so far, stdout and stderr. */
  output: () => string;
  kill: (signal?: NodeJS.Signals) => void;
}

export function startPython(
  python: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): PythonProcess {
  const child: ChildProcess = spawn(python, args, {
    cwd: options.cwd,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    // Not started at all (no such file): there is no exit to wait for.
    child.once('error', (error) => {
      output += `${String(error)}\n`;
      resolve(null);
    });
  });
  return { exited, output: () => output, kill: (signal = 'SIGTERM') => void child.kill(signal) };
}
