// Every code block of README.md and of the two SDK READMEs runs against a real Skein (issue 53), so a
// snippet that stops working fails CI. The blocks run as a person runs them: README.md top to bottom
// in one terminal (shell state carries from block to block, `set -e` makes any failing command fail
// its block), then its Quickstart again in a fresh terminal (it must run twice in a row without
// error), then the TypeScript and the Python SDK's READMEs in the folder the Quickstart made. A
// TypeScript block runs as a file with `npx tsx`, a Python one with the terminal's `python`. Markers
// in the Markdown (markdown-blocks.ts) skip a block, with the reason written there, or mark a program
// that runs until stopped: the test starts it, writes to echobot as ada, waits for the bot's answer to
// that message, then sends SIGTERM and expects the program to say it is stopping and every process it
// started to be gone. Last, test/onramp/time-to-first-reply.sh times an empty folder to the first reply.
//
// Skein runs as its own process on a Neo4j of this file's own: the README's accounts (ada, echobot,
// bob) have fixed tags, and the service runs exactly as `npm start` would, with the environment of
// the README's own start command (its SKEIN_ADMIN_TAG and SKEIN_ADMIN_PASSWORD).
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { SkeinClient } from '../../sdks/typescript/src/index.js';
import { createLogger } from '../../src/platform/logger.js';
import { startEmbeddedNeo4j, type EmbeddedNeo4j } from '../../src/platform/neo4j/embedded-neo4j.js';
import { PROJECT_ROOT } from '../../src/platform/paths.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { freePort } from '../support/test-neo4j.js';
import { markdownBlocks, type MarkdownBlock } from './markdown-blocks.js';
import { ShellSession, groupAlive, killGroup, shellQuote, type RunningProgram } from './shell-session.js';

// A Neo4j, a service, npm and pip installs and a dozen bots started and stopped on a 2-core machine.
jest.setTimeout(1_200_000);

const run = promisify(execFile);
const root = mkdtempSync(path.join(os.tmpdir(), 'skein-readme-'));
const README = path.join(PROJECT_ROOT, 'README.md');
const TS_README = path.join(PROJECT_ROOT, 'sdks/typescript/README.md');
const PY_README = path.join(PROJECT_ROOT, 'sdks/python/README.md');
const readmeBlocks = markdownBlocks(README, 'README.md');
const tsBlocks = markdownBlocks(TS_README, 'sdks/typescript/README.md');
const pyBlocks = markdownBlocks(PY_README, 'sdks/python/README.md');

/** The account the README's `npm start` block makes, which writes to the bots. */
const admin = adminOf(readmeBlocks);
const BOT_TAG = 'echobot';
const botFolder = path.join(root, 'tmp', BOT_TAG);

let neo4j: EmbeddedNeo4j | undefined;
let service: ServiceProcess | undefined;
let env: Record<string, string>;
const running: RunningProgram[] = [];

beforeAll(async () => {
  neo4j = await startEmbeddedNeo4j({
    dataDir: path.join(root, 'neo4j'),
    port: await freePort(),
    heap: '512m',
    pageCache: '64m',
    log: createLogger('warn'),
  });
  const dataDir = path.join(root, 'data');
  service = await startServiceProcess({
    PORT: String(await freePort()),
    NEO4J_URI: neo4j.target.uri,
    NEO4J_PASSWORD: neo4j.target.password,
    SKEIN_DATA_DIR: dataDir,
    SKEIN_ADMIN_TAG: admin.tag,
    SKEIN_ADMIN_PASSWORD: admin.password,
    // The webhook bots of the SDK READMEs listen on loopback.
    SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true',
    SKEIN_RATE_LIMIT_AUTH_PER_MIN: '100000',
    SKEIN_RATE_LIMIT_POSTS_PER_MIN: '100000',
    SKEIN_RATE_LIMIT_ACTIONS_PER_MIN: '100000',
    LOG_LEVEL: 'silent',
  });
  const inherited = { ...process.env } as Record<string, string>;
  delete inherited.NODE_OPTIONS; // jest's --experimental-vm-modules is not the blocks' business
  for (const name of Object.keys(inherited)) if (/^(npm_|SKEIN_)/.test(name)) delete inherited[name];
  env = {
    ...inherited,
    // What a reader has: Skein at this URL, its data folder, the clone, a temporary folder.
    SKEIN_URL: service.url,
    SKEIN_DATA_DIR: dataDir,
    SKEIN: PROJECT_ROOT,
    TMPDIR: path.join(root, 'tmp'),
    // `npm run admin` reaches the service's Neo4j as the README says (NEO4J_URI).
    NEO4J_URI: neo4j.target.uri,
    NEO4J_PASSWORD: neo4j.target.password,
  };
  await run('mkdir', ['-p', env.TMPDIR!]);
}, 900_000);

afterAll(async () => {
  for (const program of running) killGroup(program.child, 'SIGKILL');
  if (service) {
    service.kill('SIGKILL');
    await service.exited;
  }
  await neo4j?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('the code blocks of the READMEs, run against a real Skein', () => {
  it('when the blocks are read, then each runs by its language or carries a marker with its reason', () => {
    for (const block of [...readmeBlocks, ...tsBlocks, ...pyBlocks]) {
      const runnable = ['sh', 'ts', 'python'].includes(block.language);
      if (!runnable)
        expect({ where: block.where, marker: block.marker?.kind }).toEqual({
          where: block.where,
          marker: 'skip',
        });
      if (block.marker) expect(block.marker.reason.length).toBeGreaterThan(10);
    }
    // The Quickstart's three commands are there, and only the service itself is skipped in it.
    const quickstart = readmeBlocks.filter((block) => block.section.startsWith('Quickstart'));
    expect(quickstart.filter((block) => block.marker?.kind === 'skip')).toHaveLength(1);
    expect(quickstart.some((block) => block.code.includes('npx skein-sdk bot create'))).toBe(true);
  });

  it('when README.md runs top to bottom, then every block succeeds and each bot answers', async () => {
    const started = Date.now();
    await runBlocks(readmeBlocks, new ShellSession(path.join(root, 'session-1'), PROJECT_ROOT, env));
    console.log(`README.md ran in ${Math.round((Date.now() - started) / 1000)} s`);
  });

  it('when the Quickstart runs a second time in a fresh terminal, then it succeeds again', async () => {
    const quickstart = readmeBlocks.filter((block) => block.section.startsWith('Quickstart'));
    await runBlocks(quickstart, new ShellSession(path.join(root, 'session-2'), PROJECT_ROOT, env));
    // One bot, one key kept: the second `bot create` found both.
    const dotenv = readFileSync(path.join(botFolder, '.env'), 'utf8');
    expect(dotenv).toMatch(/^SKEIN_API_KEY=sk_/m);
    expect(dotenv).toContain(`SKEIN_URL=${service!.url}`);
  });

  it('when the TypeScript SDK README runs in the bot folder, then every block succeeds', async () => {
    await runBlocks(tsBlocks, new ShellSession(path.join(root, 'session-3'), botFolder, env));
  });

  it('when the Python SDK README runs in the bot folder, then every block succeeds', async () => {
    await runBlocks(pyBlocks, new ShellSession(path.join(root, 'session-4'), botFolder, env));
  });

  it('when time-to-first-reply.sh runs from an empty folder, then the first reply comes within 60 s', async () => {
    const { stdout } = await run('bash', [path.join(PROJECT_ROOT, 'test/onramp/time-to-first-reply.sh')], {
      env: { ...env, SKEIN_USER: admin.tag, SKEIN_PASSWORD: admin.password, SKEIN_BOT_TAG: 'timedbot' },
      timeout: 300_000,
    });
    const seconds = Number(/first reply after ([\d.]+) s/.exec(stdout)?.[1]);
    console.log(stdout);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(60);
  });
});

/** Runs the blocks in order in one terminal; a bot block is started, answered once, and stopped. */
async function runBlocks(blocks: MarkdownBlock[], session: ShellSession): Promise<void> {
  for (const block of blocks) {
    if (block.marker?.kind === 'skip') continue;
    const code = program(block);
    if (block.marker?.kind === 'bot') {
      await runBot(block, session, code);
      continue;
    }
    const result = await session.run(code);
    if (result.code !== 0) {
      throw new Error(
        `${block.where} failed (exit ${result.code}):\n${block.code}\n--- output ---\n${result.output}`,
      );
    }
  }
}

/** The shell code that runs a block: itself, or its file run by tsx or python. */
function program(block: MarkdownBlock): string {
  if (block.language === 'sh') return block.code;
  const name = `doc-test-${path.basename(path.dirname(block.where.split(':')[0]!))}-${block.line}`;
  const file = block.language === 'ts' ? `${name}.ts` : `${name}.py`;
  const write = `cat > ${shellQuote(file)} <<'DOC_TEST_EOF'\n${block.code}DOC_TEST_EOF\n`;
  if (block.language === 'ts') return `${write}npx tsx ${shellQuote(file)}\n`;
  return `${write}"$(command -v python || command -v python3)" ${shellQuote(file)}\n`;
}

/** Starts a bot block, writes to the bot as the admin, waits for its answer, and stops it with SIGTERM. */
async function runBot(block: MarkdownBlock, session: ShellSession, code: string): Promise<void> {
  const port = String(await freePort());
  const bot = session.start(code, { PORT: port, BOT_PORT: port });
  running.push(bot);
  const describeBot = () => `${block.where}:\n${block.code}\n--- output ---\n${bot.output()}`;
  try {
    const ada = new SkeinClient({ baseUrl: service!.url });
    await ada.login({ user_tag: admin.tag, password: admin.password });
    const since = (await ada.notifications({ limit: 1 })).cursor;
    // Until the bot is up, a message may go unanswered (a first start begins at "now"): send again.
    const deadline = Date.now() + 240_000;
    let answered = false;
    let lastSent = 0;
    const sent: string[] = [];
    while (!answered) {
      if (Date.now() > deadline) throw new Error(`the bot of ${describeBot()}\nnever answered`);
      if (bot.child.exitCode !== null) throw new Error(`the bot of ${describeBot()}\nended early`);
      if (Date.now() - lastSent > 15_000) {
        sent.push((await ada.post({ content: `hello from ${block.where}`, recipients: [BOT_TAG] })).id);
        lastSent = Date.now();
      }
      answered = await repliedTo(ada, since, sent);
      if (!answered) await sleep(1000);
    }
    // "SIGTERM to npx alone" (as `kill <pid of npx>` sends it), else to the whole group (as Ctrl-C,
    // or a process manager stopping a service, does).
    const npx = /npx alone/.test(block.marker!.reason) ? npxOf(bot.child.pid!) : undefined;
    if (/npx alone/.test(block.marker!.reason) && npx === undefined)
      throw new Error(`no npx under ${describeBot()}`);
    if (npx !== undefined) process.kill(npx, 'SIGTERM');
    else killGroup(bot.child, 'SIGTERM');
    const stopBy = Date.now() + 30_000;
    while (groupAlive(bot.child)) {
      if (Date.now() > stopBy) throw new Error(`SIGTERM did not stop ${describeBot()}`);
      await sleep(200);
    }
    expect(bot.output()).toMatch(/stopping/i);
  } finally {
    killGroup(bot.child, 'SIGKILL');
  }
}

/** The npm (npx) process in the group led by `leader`, found with `ps`. */
function npxOf(leader: number): number | undefined {
  const ps = spawnSync('ps', ['-e', '-o', 'pid=,pgid=,args='], { encoding: 'utf8' });
  for (const line of ps.stdout.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    if (!match || Number(match[2]) !== leader) continue;
    if (/(^|\/)(npm|npx)(\s|$)|np[mx]-cli\.js/.test(match[3]!)) return Number(match[1]);
  }
  return undefined;
}

/** Whether the bot answered one of `parents` in ada's notifications since `since`. */
async function repliedTo(ada: SkeinClient, since: string, parents: string[]): Promise<boolean> {
  let cursor = since;
  for (;;) {
    const page = await ada.notifications({ since: cursor, limit: 100 });
    for (const { event } of page.notifications) {
      if (event.type !== 'sent') continue;
      for (const message of event.content.messages) {
        if (message.author.user_tag === BOT_TAG && parents.includes(message.parent_id ?? '')) return true;
      }
    }
    cursor = page.cursor;
    if (!page.has_more) return false;
  }
}

/** SKEIN_ADMIN_TAG and SKEIN_ADMIN_PASSWORD of the README's (skipped) `npm start` block. */
function adminOf(blocks: MarkdownBlock[]): { tag: string; password: string } {
  for (const block of blocks) {
    const tag = /SKEIN_ADMIN_TAG=(\S+)/.exec(block.code)?.[1];
    const password = /SKEIN_ADMIN_PASSWORD='([^']+)'/.exec(block.code)?.[1];
    if (tag && password && block.code.includes('npm start')) return { tag, password };
  }
  throw new Error('README.md has no `SKEIN_ADMIN_TAG=… SKEIN_ADMIN_PASSWORD=… npm start` block');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
