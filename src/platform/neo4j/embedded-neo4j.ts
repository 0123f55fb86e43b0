// Runs Neo4j Community embedded (the Java launcher in neo4j/) when NEO4J_URI is unset: builds the
// launcher with Maven when its jars are missing, starts it with Bolt on 127.0.0.1, waits for it to
// answer, and stops it on shutdown (it also stops by itself when this process dies, however it dies:
// docs/decisions/032-clean-stops.md). The `neo4j` password is random, kept in a mode-600 file beside
// the store, so that other local users cannot open the database through the loopback port.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { PROJECT_ROOT } from '../paths.js';
import type { Logger } from '../logger.js';
import type { Neo4jTarget } from './database.js';
import type { Config } from '../config.js';

const LAUNCHER_DIR = path.join(PROJECT_ROOT, 'neo4j');
const CLASSES = path.join(LAUNCHER_DIR, 'target', 'classes');
const LIB = path.join(LAUNCHER_DIR, 'target', 'lib');
const READY_LINE = 'SKEIN_NEO4J_READY';
/** The launcher waits for an earlier one on the same store (killed with its service, still closing). */
const WAITING_LINE = /SKEIN_NEO4J_WAITING (\d+)\n/;

/**
 * The heap grows with the load and gives memory back when the load goes. The JVM's defaults commit
 * a sixty-fourth of the machine's memory at start (384 MiB on 24 GiB) and let G1 size its young
 * generation for 200 ms pauses: an embedded Neo4j on a 13 MiB store sat at 670 MiB after the peer
 * run's reads (271 MiB of it heap, mostly young garbage). A 50 ms pause goal keeps the young
 * generation small, and the free ratios shrink the heap after a marking cycle. A quiet JVM reaches
 * no such cycle by itself: the launcher asks for one once it has gone quiet after its heap grew
 * (its idle collector; System.gc() starts a concurrent cycle here, not a full collection). G1's own
 * periodic collection did the same but every second whether or not anything had happened, which
 * kept 7-8% of a core busy on an idle service. Those cycles unload no classes: with class
 * unloading, their remark pauses took 100–300 ms (Neo4j holds some 30,000 compiled methods and its
 * generated query classes) and a post landing in one waited for it (fan-out to 1,000 p99 went from
 * 0.4 to 1.9 s). Classes are still unloaded by a full collection, which Neo4j's metaspace growth
 * triggers at start. -Xmx (SKEIN_NEO4J_HEAP) bounds it all. GCTimeRatio 4 (G1's default is 12) lets
 * G1 spend up to a fifth of its time collecting before it grows the heap: right after 2,000 posts at
 * 16 in flight the JVM held 541 MiB PSS instead of 676-717 (2026-11-28, same seed), for 1.5-2x the
 * pause time (young pauses' p99 up to 73 ms) and no change in the posts' rate beyond the noise of
 * those runs. SerialGC held less still (470) but paused up to 240 ms. TrimNativeHeapInterval hands
 * glibc's freed native memory back every 5 s (20-25 MiB on an idle service, 2026-11-28); it is a
 * product flag since 17.0.9, and IgnoreUnrecognizedVMOptions lets an older Java 17 start without it.
 * The free ratios are 5-15% (G1's defaults 40-70%; 10-30% until 2026-11-29): after the peer run's
 * workloads the heap held 75 MB in use after each remark, and 30% free kept 112 MB committed; with
 * 15% the JVM's PSS at the memory rows after the workloads was 523-527 MiB against 554-559 (peer runs
 * p2be4 and pb4ce). Under heavy posting the heap then grows back after each shrink: the 16 clients
 * of `npm run bench -- --only post,fanout` posted 182 and 201 a second against 230 (one run each),
 * though 303 in the full small run that followed (255 at 52b7602), so the cost is within the noise.
 */
const JVM_MEMORY_FLAGS = [
  '-Xms64m',
  '-XX:MaxGCPauseMillis=50',
  '-XX:GCTimeRatio=4',
  '-XX:MinHeapFreeRatio=5',
  '-XX:MaxHeapFreeRatio=15',
  '-XX:+ExplicitGCInvokesConcurrent',
  '-XX:-ClassUnloadingWithConcurrentMark',
  '-XX:+IgnoreUnrecognizedVMOptions',
  '-XX:TrimNativeHeapInterval=5000',
];

/**
 * The JVM runs at a lower CPU priority than the service (nice 10 unless SKEIN_NEO4J_NICE says
 * otherwise). All of Neo4j's work is asked for by the service, and every answer, frame and next
 * statement passes through the service's one event loop: when both want a saturated CPU, the
 * service goes first, and Neo4j still has every cycle the service leaves. On 2 cores, with 16
 * clients posting while a channel post went to 1,000 sockets (`npm run bench -- --only post,fanout`,
 * 2026-11-29, with the post lanes of post-lanes.ts), the post's last frame took p50 48 / p99 56 ms
 * at nice 10, 60 / 88 at nice 5 and 80 / 108 at the same priority, and the posting clients' rate did
 * not fall (212-215 a second against 177); nice 10 without the lanes: 178 / 264 ms (decision 029).
 */
export const EMBEDDED_NICE = 10;

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  heap: string;
  pageCache: string;
  /** Niceness added to this process's for the JVM (EMBEDDED_NICE unless given; 0: the same priority). */
  nice?: number;
  log: Logger;
  startTimeoutMs?: number;
  /** Called when Neo4j exits on its own after it was up (killed, crashed); not on stop(). */
  onUnexpectedExit?: (code: number | null, signal: NodeJS.Signals | null) => void;
}

/** The launcher's options as the service's configuration sets them (the service, the backup command). */
export function embeddedOptionsOf(config: Config, log: Logger): EmbeddedOptions {
  return {
    dataDir: config.dataDir,
    port: config.neo4j.embeddedPort,
    heap: config.neo4j.embeddedHeap,
    pageCache: config.neo4j.embeddedPageCache,
    nice: config.neo4j.embeddedNice,
    log,
  };
}

export interface EmbeddedNeo4j {
  target: Neo4jTarget;
  /** Shuts Neo4j down (SIGTERM; the launcher halts itself if that takes over 10 s) and waits for its exit. */
  stop(): Promise<void>;
  /** Ends Neo4j at once (SIGKILL), for a stop that overran; its store recovers at the next start. */
  kill(): void;
}

/** Builds the launcher with Maven unless its classes and jars are there and newer than its sources. */
export function ensureLauncherBuilt(log: Logger): void {
  const built = path.join(CLASSES, 'dev', 'skein', 'neo4j', 'Launcher.class');
  const sources = [
    path.join(LAUNCHER_DIR, 'pom.xml'),
    path.join(LAUNCHER_DIR, 'src/main/java/dev/skein/neo4j/Launcher.java'),
  ];
  const upToDate =
    existsSync(built) &&
    existsSync(LIB) &&
    sources.every((source) => statSync(source).mtimeMs <= statSync(built).mtimeMs);
  if (upToDate) return;
  log.info(
    'building the embedded Neo4j launcher with Maven (first run only; a cold Maven cache downloads about ' +
      '120 MB, which can take a few minutes with no output)',
  );
  // Maven's output is kept and shown only on failure, without terminal codes: even with -B and
  // style.color=never it writes ANSI resets, which made stray characters at every first start.
  const result = spawnSync(
    'mvn',
    ['-q', '-B', '-Dstyle.color=never', '-f', path.join(LAUNCHER_DIR, 'pom.xml'), 'package', '-DskipTests'],
    { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.error) throw new Error(missingTool('mvn', result.error));
  if (result.status !== 0) {
    const output = stripVTControlCharacters(`${result.stdout}${result.stderr}`).trim();
    throw new Error(`building the Neo4j launcher with Maven failed:\n${output.slice(-8000)}`);
  }
}

/**
 * What to say when a program the embedded Neo4j needs cannot be run: the one command that installs
 * both (a fresh machine lacks both or neither), or the way around them.
 */
function missingTool(tool: 'java' | 'mvn' | 'nice', error: Error): string {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return `could not run ${tool}: ${error.message}`;
  return notFound(tool);
}

/** The message for a tool that is not on PATH (also java behind nice, which exits 127 then). */
function notFound(tool: 'java' | 'mvn' | 'nice'): string {
  if (tool === 'nice')
    return 'nice was not found on PATH: set SKEIN_NEO4J_NICE=0 to start the embedded Neo4j without it.';
  return (
    `${tool} was not found on PATH: the embedded Neo4j needs Java 17 and Maven. Install them ` +
    '(Debian/Ubuntu: sudo apt-get install -y openjdk-17-jdk-headless maven), or set NEO4J_URI to a Neo4j 5 server.'
  );
}

function readOrCreatePassword(dataDir: string): string {
  const file = path.join(dataDir, 'neo4j-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomBytes(24).toString('base64url');
  writeFileSync(file, password, { mode: 0o600 });
  return password;
}

/**
 * Where a running service's embedded Neo4j answers, for tools beside it (the admin command): the
 * loopback Bolt port and the password the service keeps in its data folder. Null before the first start.
 */
export function embeddedNeo4jTarget(dataDir: string, port: number): Neo4jTarget | null {
  const file = path.join(dataDir, 'neo4j-password');
  if (!existsSync(file)) return null;
  const password = readFileSync(file, 'utf8').trim();
  return { uri: `bolt://127.0.0.1:${port}`, user: 'neo4j', password, database: undefined };
}

export async function startEmbeddedNeo4j(options: EmbeddedOptions): Promise<EmbeddedNeo4j> {
  ensureLauncherBuilt(options.log);
  mkdirSync(options.dataDir, { recursive: true });
  const password = readOrCreatePassword(options.dataDir);
  const nice = options.nice ?? EMBEDDED_NICE;
  // Through nice(1), so that every JVM thread starts at that niceness (threads inherit it; setting
  // it on the process after the spawn would miss the threads the JVM had already started).
  const [command, ...niceArgs]: [string, ...string[]] =
    nice > 0 ? ['nice', '-n', String(nice), 'java'] : ['java'];
  const child = spawn(
    command,
    [
      ...niceArgs,
      ...JVM_MEMORY_FLAGS,
      `-Xmx${options.heap}`,
      '-XX:+UseG1GC',
      '-XX:+ExitOnOutOfMemoryError',
      '-cp',
      `${CLASSES}${path.delimiter}${path.join(LIB, '*')}`,
      'dev.skein.neo4j.Launcher',
    ],
    {
      env: {
        ...process.env,
        // glibc gives threads that malloc arenas of their own (up to 8 per core), which Neo4j's
        // many threads leave mostly empty; two arenas saved 28 MiB (docs/benchmarks.md).
        MALLOC_ARENA_MAX: '2',
        SKEIN_NEO4J_HOME: path.join(options.dataDir, 'neo4j'),
        SKEIN_NEO4J_PORT: String(options.port),
        SKEIN_NEO4J_PASSWORD: password,
        SKEIN_NEO4J_PAGECACHE: options.pageCache,
      },
      // stdin stays open as a lifeline: the launcher exits when it closes (this process died).
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group: a Ctrl-C in the terminal (SIGINT to the foreground group) reaches
      // this process only, which stops Neo4j itself once requests have drained, instead of Neo4j
      // going away under them.
      detached: true,
    },
  );
  await waitUntilReady(child, options, nice);
  options.log.info({ port: options.port, pid: child.pid }, 'embedded Neo4j is up');
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) options.onUnexpectedExit?.(code, signal);
  });
  return {
    target: { uri: `bolt://127.0.0.1:${options.port}`, user: 'neo4j', password, database: undefined },
    stop: () => {
      stopping = true;
      return stopChild(child);
    },
    kill: () => {
      stopping = true;
      child.kill('SIGKILL');
    },
  };
}

function waitUntilReady(child: ChildProcess, options: EmbeddedOptions, nice: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`embedded Neo4j did not start in time:\n${output.slice(-4000)}`));
    }, options.startTimeoutMs ?? 180_000);
    let told = false;
    // Output keeps being read (a full pipe would block Neo4j) but only its tail is kept.
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
      const waiting = told ? null : WAITING_LINE.exec(output);
      if (waiting) {
        told = true;
        options.log.warn(
          { pid: Number(waiting[1]) },
          `waiting for the embedded Neo4j of an earlier start (pid ${waiting[1]}) to release ${options.dataDir}`,
        );
      }
      if (output.includes(READY_LINE)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      // nice(1) answers 127 when it cannot find the command it was to run.
      if (nice > 0 && code === 127) reject(new Error(notFound('java')));
      else reject(new Error(`embedded Neo4j exited with code ${code}:\n${output.slice(-4000)}`));
    });
    // A java (or nice) that cannot be started emits 'error' (and no 'exit').
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(missingTool(nice > 0 ? 'nice' : 'java', error)));
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const killTimer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', () => {
      clearTimeout(killTimer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
