// `npx tsx bot.ts` runs the bot three processes deep: npm (npx), tsx's launcher, then node with the
// bot. A SIGTERM sent to npx (what `kill <pid>` or a process manager does) ends npm without passing
// the signal on, and the bot would run on as an orphan. So a bot started under npm watches the npm
// process it was started by and stops cleanly, as on SIGTERM, once that process is gone.
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

/** The pid of the npm (or npx) process this one runs under, when there is one within a few levels. */
export function npmLauncherPid(env: Record<string, string | undefined> = process.env): number | undefined {
  // npm marks the environment of everything it runs.
  if (!env.npm_execpath && !env.npm_command) return undefined;
  let pid = process.ppid;
  for (let depth = 0; depth < 6 && pid > 1; depth += 1) {
    const found = processInfo(pid);
    if (!found) return undefined;
    if (isNpm(found.args)) return pid;
    pid = found.ppid;
  }
  return undefined;
}

/** Calls `onGone` once the process `pid` has ended (checked every second); answers the un-watch. */
export function watchProcess(pid: number, onGone: () => void, everyMs = 1000): () => void {
  const timer = setInterval(() => {
    if (alive(pid)) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref(); // the watch alone does not keep the bot alive
  return () => clearInterval(timer);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isNpm(args: string[]): boolean {
  // npm sets its process title ("npm exec tsx bot.ts"), which replaces its command line on Linux.
  const words = args.join(' ').split(/\s+/).slice(0, 3);
  return words.some(
    (word) => /^(npm|npx)(\.cmd)?$/.test(path.basename(word)) || /np[mx]-cli\.js$/.test(word),
  );
}

/** A process's parent and command line: from /proc on Linux, else from `ps`. */
function processInfo(pid: number): { ppid: number; args: string[] } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    return { ppid, args };
  } catch {
    const ps = spawnSync('ps', ['-o', 'ppid=,args=', '-p', String(pid)], { encoding: 'utf8' });
    const match = /^\s*(\d+)\s+(.*)$/.exec(ps.stdout ?? '');
    return match ? { ppid: Number(match[1]), args: match[2]!.split(/\s+/) } : undefined;
  }
}
