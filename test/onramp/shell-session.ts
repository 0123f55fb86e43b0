// A terminal, as a person reading a README types into it: each block runs in bash (with `set -e` and
// `pipefail`, so a failing command fails the block), starting from the variables, functions and
// folder the blocks before it left behind. Background jobs a block started end with it. A program
// that runs until stopped (a bot) is started in a process group of its own, to be stopped by signal.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface BlockRun {
  code: number | null;
  output: string;
}

export interface RunningProgram {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
}

/** Variables bash keeps for itself, which a later block must not be handed back. */
const BASH_OWN =
  'BASH[A-Z_]*|_|FUNCNAME|GROUPS|PIPESTATUS|RANDOM|SRANDOM|LINENO|SECONDS|EPOCHREALTIME|EPOCHSECONDS|' +
  'SHLVL|OLDPWD|PWD|DIRSTACK|COMP_[A-Z]*|HISTCMD|OPTIND|OPTERR|SHELLOPTS|PPID|UID|EUID|__status';

export class ShellSession {
  private readonly state: string;

  constructor(
    dir: string,
    cwd: string,
    private readonly env: Record<string, string>,
  ) {
    this.state = dir;
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'vars.sh'), '');
    writeFileSync(path.join(dir, 'cwd'), cwd);
  }

  /** Runs a shell block to its end; the session keeps what it set and where it went. */
  run(code: string, timeoutMs = 600_000): Promise<BlockRun> {
    const script = this.script(code, true);
    const child = spawn('bash', ['-c', script], {
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        output += `\n[doc-test] timed out after ${timeoutMs} ms\n`;
        killGroup(child, 'SIGKILL');
      }, timeoutMs);
      child.once('close', (status) => {
        clearTimeout(timer);
        resolve({ code: status, output });
      });
    });
  }

  /** Starts a program that runs until stopped, in its own process group, from the session's state. */
  start(code: string, extraEnv: Record<string, string> = {}): RunningProgram {
    const child = spawn('bash', ['-c', this.script(code, false)], {
      env: { ...this.env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (status) => resolve(status)));
    return { child, exited, output: () => output };
  }

  private script(code: string, keep: boolean): string {
    const vars = shellQuote(path.join(this.state, 'vars.sh'));
    const cwd = shellQuote(path.join(this.state, 'cwd'));
    const save = keep
      ? `__save() { local __status=$?; trap - EXIT
  { declare -p $(compgen -v) 2>/dev/null | grep -Ev '^declare -[a-zA-Z]*r' | grep -Ev '^declare -[-a-zA-Z]* (${BASH_OWN})='
    declare -f; } > ${vars}
  pwd > ${cwd}
  [ -z "$(jobs -p)" ] || kill $(jobs -p) 2>/dev/null || true
  exit $__status; }
trap __save EXIT
`
      : '';
    return `source ${vars}
cd "$(cat ${cwd})"
${save}set -eo pipefail
${code}`;
  }
}

/** Signals every process of the program's group (a terminal's Ctrl-C, or a process manager, does so). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

/** Whether any process of the group is still running. */
export function groupAlive(child: ChildProcess): boolean {
  try {
    process.kill(-child.pid!, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
