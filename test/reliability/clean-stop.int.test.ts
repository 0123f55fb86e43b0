// Clean stops (issue 52): the service started as an operator starts it (`npm start`) and stopped as
// `kill`, a process manager or a terminal's Ctrl-C stops it leaves no process behind within 15 s;
// a service killed with SIGKILL leaves no Neo4j behind (the JVM notices and exits by itself), and
// the next start on the same data folder needs no cleanup, even while that JVM is still closing.
// Processes are found by the data folder in their environment (/proc), so whatever a start ran,
// npm, Node and the JVM, is seen (docs/decisions/032-clean-stops.md).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import {
  isRunning,
  processesWithDataDir,
  startServiceProcess,
  waitUntil,
  type Launch,
  type ServiceProcess,
} from '../support/service-process.js';
import { freePort } from '../support/test-neo4j.js';

// Six starts of a service with its own Neo4j on a loaded 2-core machine.
jest.setTimeout(900_000);

/** The bound for a stop, and for an orphaned Neo4j to notice and exit. */
const STOP_BOUND_MS = 15_000;

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'skein-stop-'));
let env: Record<string, string>;
let running: ServiceProcess | undefined;

beforeAll(async () => {
  env = {
    PORT: String(await freePort()),
    SKEIN_DATA_DIR: dataDir,
    SKEIN_NEO4J_PORT: String(await freePort()),
    SKEIN_NEO4J_HEAP: '512m',
    LOG_LEVEL: 'info',
  };
});

afterAll(async () => {
  // A failed test may leave a service behind: end every process of this data folder.
  for (const { pid } of processesWithDataDir(dataDir)) process.kill(pid, 'SIGKILL');
  await waitUntil(() => processesWithDataDir(dataDir).length === 0, STOP_BOUND_MS, 'cleanup');
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(launch: Launch, onOutput?: (output: string) => void): Promise<ServiceProcess> {
  running = await startServiceProcess(env, { launch, ...(onOutput ? { onOutput } : {}) });
  return running;
}

/** The embedded Neo4j's JVM of this data folder: the one java process, whose pid the launcher reports. */
function neo4jPid(): number {
  const javas = processesWithDataDir(dataDir).filter((p) => p.command === 'java');
  expect(javas).toHaveLength(1);
  const reported = readFileSync(path.join(dataDir, 'neo4j', 'launcher.lock'), 'utf8').trim();
  expect(Number(reported)).toBe(javas[0]!.pid);
  return javas[0]!.pid;
}

/** Waits (up to the bound) until no process of the data folder is left; answers how long it took. */
function allGone(): Promise<number> {
  return waitUntil(
    () => processesWithDataDir(dataDir).length === 0,
    STOP_BOUND_MS,
    'processes of the stopped service remain',
    () => processesWithDataDir(dataDir),
  );
}

describe('stopping the service by signal', () => {
  it('when npm is sent SIGTERM (as kill or a process manager sends it), then npm, the service and its Neo4j are gone within 15 s and it exits 0', async () => {
    const service = await start('npm start');
    const commands = processesWithDataDir(dataDir).map((p) => p.command);
    expect(commands).toEqual(expect.arrayContaining(['npm start', 'node', 'java']));
    neo4jPid();

    process.kill(service.pid, 'SIGTERM');
    await allGone();
    // 0, not the 1 of a stop that overran or of a Neo4j that died under the service.
    expect(await service.exited).toBe(0);
    expect(service.output()).toContain('shutting down');
  });

  it("when a terminal's Ctrl-C sends SIGINT to npm's process group, then everything is gone within 15 s and it exits 0", async () => {
    const service = await start('npm start');
    const neo4j = neo4jPid();

    process.kill(-service.pid, 'SIGINT');
    await allGone();
    expect(isRunning(neo4j)).toBe(false);
    expect(await service.exited).toBe(0);
    // The service stopped Neo4j itself, after its requests: Neo4j leaving first would be fatal.
    expect(service.output()).not.toContain('exited unexpectedly');
  });

  it('when its Neo4j does not stop, then the service kills it at its deadline and both are gone within 15 s', async () => {
    const service = await start('tsx');
    const neo4j = neo4jPid();
    // A stopped JVM cannot act on the SIGTERM it is sent: a shutdown that hangs.
    process.kill(neo4j, 'SIGSTOP');

    process.kill(service.pid, 'SIGTERM');
    await allGone();
    expect(await service.exited).toBe(1);
    expect(service.output()).toContain('killing the embedded Neo4j');
  });
});

describe('killing the service with SIGKILL', () => {
  it('when the Node process is killed, then its Neo4j exits by itself within 15 s and the next start becomes ready without cleanup', async () => {
    const killed = await start('tsx');
    const neo4j = neo4jPid();

    killed.kill('SIGKILL');
    await killed.exited;
    await waitUntil(() => !isRunning(neo4j), STOP_BOUND_MS, 'the orphaned Neo4j is still running');
    // What it leaves on disk holds nothing: the locks are the OS's, released with the process.
    expect(existsSync(path.join(dataDir, 'neo4j', 'launcher.lock'))).toBe(true);
    expect(existsSync(path.join(dataDir, 'neo4j', 'data', 'databases', 'store_lock'))).toBe(true);

    const next = await start('tsx');
    expect((await fetch(`${next.url}/readyz`)).status).toBe(200);
    expect(neo4jPid()).not.toBe(neo4j);
  });

  it('when the next start comes while the Neo4j of the killed service is still closing, then it waits for it and becomes ready', async () => {
    const killed = running!;
    const neo4j = neo4jPid();
    // Holding the old JVM stopped makes "still closing" last until the new one is waiting for it.
    process.kill(neo4j, 'SIGSTOP');
    killed.kill('SIGKILL');
    await killed.exited;

    let waiting = false;
    let settled = false;
    const next = start('tsx', (output) => {
      waiting ||= output.includes(`waiting for the embedded Neo4j of an earlier start (pid ${neo4j})`);
    });
    void next.then(
      () => (settled = true),
      () => (settled = true),
    );
    try {
      await waitUntil(() => waiting || settled, 240_000, 'the new start neither waited nor ended');
    } finally {
      process.kill(neo4j, 'SIGCONT');
    }
    // A start that failed (on Neo4j's store lock or the Bolt port) shows its error here.
    if (!waiting) await next;
    expect(waiting).toBe(true);
    await waitUntil(() => !isRunning(neo4j), STOP_BOUND_MS, 'the orphaned Neo4j is still running');
    const service = await next;
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);

    service.kill('SIGTERM');
    await allGone();
    expect(await service.exited).toBe(0);
  });
});
