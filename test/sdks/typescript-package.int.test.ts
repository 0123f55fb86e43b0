// The TypeScript SDK as a consumer gets it (issue 39): `npm pack` in sdks/typescript (its prepare
// builds dist/ with tsc), then a scratch project outside the repository (a CommonJS one, what
// `npm init -y` makes) installs the tarball from the registry's point of view. There: consumer files
// type-check with the repository's tsc under strict settings (`strict`, `exactOptionalPropertyTypes`,
// `noUncheckedIndexedAccess`, and without skipLibCheck, so the package's own .d.ts are checked too),
// as an ES module (.mts) and as CommonJS (.cts); `require('skein-sdk')` and `import 'skein-sdk'` both
// load it; and the example echo bot, copied in unchanged, runs with tsx against a real Skein, answers
// a message, exits 0 on SIGTERM, and exits 1 when its token is refused. The context example and a
// consumer's use of message.context() type-check from the package's own declarations.
import { spawn } from 'node:child_process';
import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { SkeinClient } from '../../sdks/typescript/src/index.js';
import { PROJECT_ROOT } from '../../src/platform/paths.js';
import { createManaged, registerWriter } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// A tsc build, an npm install and a strict type-check on a loaded 2-core machine.
jest.setTimeout(600_000);

const SDK_DIR = path.join(PROJECT_ROOT, 'sdks/typescript');
const TSC = path.join(PROJECT_ROOT, 'node_modules/typescript/bin/tsc');
const TSX = path.join(PROJECT_ROOT, 'node_modules/tsx/dist/cli.mjs');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'skein-sdk-consumer-'));
const project = path.join(scratch, 'project');
let api: TestServer;

beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
  rmSync(scratch, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  output: string;
}

/** Runs a command without blocking this process (the service under test runs in it). */
function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  const inherited = { ...process.env };
  delete inherited.NODE_OPTIONS; // jest's --experimental-vm-modules is not the consumer's business
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...inherited, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

async function succeed(command: string, args: string[], cwd: string): Promise<string> {
  const result = await run(command, args, cwd);
  if (result.code !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed (exit ${result.code}):\n${result.output}`);
  }
  return result.output;
}

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    noEmit: true,
  },
  include: ['*.ts', '*.mts', '*.cts'],
};

/** An ES module consumer: the options straight from process.env (string | undefined), and real types. */
const CONSUMER_MTS = `
import { createServer } from 'node:http';
import {
  runBot, SkeinBot, SkeinClient, SkeinSocket,
  type BotMessage, type ConversationContext, type EndpointOptions, type MessageContext, type MessageOutput,
} from 'skein-sdk';

export const client = new SkeinClient({ baseUrl: 'http://localhost:8080', token: process.env.SKEIN_TOKEN, apiKey: process.env.SKEIN_API_KEY });
const bot = new SkeinBot({ url: process.env.SKEIN_URL, token: process.env.SKEIN_TOKEN, cursorFile: process.env.SKEIN_CURSOR_FILE, concurrency: 2, events: ['sent', 'ping'] });
bot.onMessage(async (message: BotMessage, ctx: MessageContext): Promise<void> => {
  const reply: MessageOutput = await ctx.reply(\`echo: \${message.content}\`);
  const root = ctx.event.content.context[0];
  const conversation: ConversationContext = await message.context();
  const turns: { role: 'assistant' | 'user'; content: string }[] = conversation.entries.map(({ role, content }) => ({ role, content }));
  console.log(reply.id, root?.id, message.author.user_tag, turns.length, conversation.truncated, message.message_context?.message_id);
});
export const withContext = new SkeinBot({ includeContext: true });
export const read: Promise<ConversationContext> = client.messageContext('0123abcd', { limit: 10, maxChars: 2000 });
export const options: Promise<EndpointOptions> = client.setEndpointOptions('0123abcd', { include_context: true });
export const server = createServer(bot.webhook());
export const socket = new SkeinSocket({ baseUrl: 'http://localhost:8080', token: process.env.SKEIN_TOKEN, since: process.env.CURSOR, onNotification: ({ cursor }) => console.log(cursor) });
export const running: Promise<void> = runBot((message, ctx) => ctx.reply(message.content), { apiKey: process.env.SKEIN_API_KEY });
// @ts-expect-error: not an event type (the types are real, not any)
export const wrong = new SkeinBot({ events: ['message.updated'] });
`;

/** A CommonJS consumer: TypeScript resolves the package's require() types. */
const CONSUMER_CTS = `
import { SkeinBot, type BotOptions } from 'skein-sdk';
const options: BotOptions = { token: process.env.SKEIN_TOKEN, handleSignals: false };
export const bot = new SkeinBot(options);
`;

describe('the TypeScript SDK, packed and installed into a project outside the repository', () => {
  beforeAll(async () => {
    const tarballs = path.join(scratch, 'tarballs');
    mkdirSync(tarballs);
    await succeed('npm', ['pack', '--pack-destination', tarballs], SDK_DIR);
    const [tarball] = readdirSync(tarballs).filter((name) => name.endsWith('.tgz'));
    expect(tarball).toMatch(/^skein-sdk-\d+\.\d+\.\d+\.tgz$/);

    // `npm init -y` makes a CommonJS project; @types/node as the repository has it (from npm's cache).
    const nodeTypes = (
      JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'node_modules/@types/node/package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
    mkdirSync(project);
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'commonjs' }, null, 2),
    );
    await succeed(
      'npm',
      [
        'install',
        path.join(tarballs, tarball!),
        `@types/node@${nodeTypes}`,
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
      ],
      project,
    );
    copyFileSync(path.join(SDK_DIR, 'examples/echo-bot.ts'), path.join(project, 'echo-bot.ts'));
    copyFileSync(path.join(SDK_DIR, 'examples/echo-bot.ts'), path.join(project, 'echo-bot.mts'));
    copyFileSync(path.join(SDK_DIR, 'examples/context-bot.ts'), path.join(project, 'context-bot.mts'));
  });

  it('when the tarball is installed, then it ships the build, the examples and the license, and declares its runtime dependencies', () => {
    const installed = path.join(project, 'node_modules/skein-sdk');
    const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies).sort()).toEqual(['standardwebhooks', 'ws']);
    expect(readdirSync(installed).sort()).toEqual([
      'LICENSE',
      'README.md',
      'dist',
      'examples',
      'package.json',
    ]);
    expect(readdirSync(path.join(installed, 'dist')).sort()).toEqual(['cjs', 'esm']);
    expect(readdirSync(path.join(installed, 'examples')).sort()).toEqual([
      'context-bot.ts',
      'echo-bot.ts',
      'stream-bot.ts',
      'webhook-bot.ts',
    ]);
  });

  it('when the registry metadata is read, then it is complete, and `npm publish --dry-run` passes without corrections', async () => {
    const manifest = JSON.parse(
      readFileSync(path.join(project, 'node_modules/skein-sdk/package.json'), 'utf8'),
    ) as {
      [field: string]: unknown;
    };
    expect(manifest).toMatchObject({
      license: 'MIT',
      engines: { node: expect.any(String) },
      repository: { type: 'git', url: expect.stringMatching(/^git\+https:/), directory: 'sdks/typescript' },
      keywords: expect.arrayContaining(['skein', 'bot']),
      bin: { 'skein-sdk': expect.any(String) },
      description: expect.any(String),
    });
    const published = await run('npm', ['publish', '--dry-run'], SDK_DIR);
    expect(published.code).toBe(0);
    expect(published.output).toContain('examples/echo-bot.ts');
    expect(published.output).not.toMatch(/auto-corrected|errors corrected/);
    // The command is installed with the package, and answers.
    const help = await run(path.join(project, 'node_modules/.bin/skein-sdk'), ['--help'], project);
    expect(help).toMatchObject({
      code: 0,
      output: expect.stringContaining('skein-sdk bot create <bot-tag>'),
    });
  });

  it('when consumer files and the example type-check under strict settings, then tsc reports nothing, as ESM and as CommonJS', async () => {
    writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    writeFileSync(path.join(project, 'consumer.mts'), CONSUMER_MTS);
    writeFileSync(path.join(project, 'consumer.cts'), CONSUMER_CTS);
    const result = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], project);
    expect(result.output).toBe('');
    expect(result.code).toBe(0);

    // The same check fails on a type error, so its silence above means something.
    writeFileSync(
      path.join(project, 'broken.mts'),
      `import { SkeinBot } from 'skein-sdk';\nnew SkeinBot({ concurrency: '4' });\n`,
    );
    const broken = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], project);
    rmSync(path.join(project, 'broken.mts'));
    expect(broken.code).not.toBe(0);
    expect(broken.output).toMatch(/broken\.mts.*TS2322/);
  });

  it('when loaded with require() and with import, then both give the SDK, without warnings', async () => {
    const required = await run(
      process.execPath,
      [
        '-e',
        "const s = require('skein-sdk'); console.log(typeof s.SkeinBot, typeof s.SkeinClient, typeof s.verifyWebhook)",
      ],
      project,
    );
    expect(required).toEqual({ code: 0, output: 'function function function\n' });
    const imported = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { SkeinBot, SkeinClient, verifyWebhook } from 'skein-sdk'; console.log(typeof SkeinBot, typeof SkeinClient, typeof verifyWebhook)",
      ],
      project,
    );
    expect(imported).toEqual({ code: 0, output: 'function function function\n' });
  });

  it('when the copied example runs with tsx against Skein, then it answers a message and exits 0 on SIGTERM', async () => {
    const alice = await registerWriter(api);
    const bot = await createManaged(api, alice.token, { is_bot: true });
    const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
      token: alice.token,
      body: { managed_uid: bot.uid },
    });
    expect(delegated.status).toBe(200);
    const alices = new SkeinClient({ baseUrl: api.url, token: alice.token });
    const start = (await alices.notifications()).cursor;

    const inherited = { ...process.env };
    delete inherited.NODE_OPTIONS;
    const child = spawn(process.execPath, [TSX, 'echo-bot.ts'], {
      cwd: project,
      env: {
        ...inherited,
        SKEIN_URL: api.url,
        SKEIN_TOKEN: delegated.body.access_token,
        SKEIN_CURSOR_FILE: path.join(project, 'echo-bot.cursor'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitUntil(
        () => Promise.resolve(/connected to .* as uid/.test(output)),
        () => `the bot to connect:\n${output}`,
      );
      const message = await alices.post({ content: 'hello packaged bot', recipients: [`uid:${bot.uid}`] });
      await waitUntil(
        async () => (await repliesTo(alices, start, message.id)).length > 0,
        () => `the reply:\n${output}`,
      );
      expect(await repliesTo(alices, start, message.id)).toEqual(['echo: hello packaged bot']);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('when the example’s token is refused, then it exits 1 naming the refusal (as an ES module too)', async () => {
    const result = await run(process.execPath, [TSX, 'echo-bot.mts'], project, {
      SKEIN_URL: api.url,
      SKEIN_TOKEN: 'svc_session_0000000000000000.invalid',
    });
    expect(result.code).toBe(1);
    expect(result.output).toMatch(/BotRefusedError.*4401/s);
  });
});

describe('the TypeScript SDK installed from its folder into an ES module project', () => {
  const esmProject = path.join(scratch, 'esm-project');

  beforeAll(async () => {
    // The README's other way: build once, then `npm install --install-links <folder>` (a copy).
    await succeed('npm', ['run', 'build'], SDK_DIR);
    mkdirSync(esmProject);
    writeFileSync(
      path.join(esmProject, 'package.json'),
      JSON.stringify({ name: 'esm-consumer', version: '1.0.0', private: true, type: 'module' }, null, 2),
    );
    await succeed(
      'npm',
      ['install', '--install-links', SDK_DIR, '--no-audit', '--no-fund', '--prefer-offline'],
      esmProject,
    );
  });

  it('when installed with --install-links, then it is a copy holding the build and the examples, not a link to the clone', () => {
    const installed = path.join(esmProject, 'node_modules/skein-sdk');
    expect(lstatSync(installed).isSymbolicLink()).toBe(false);
    expect(readdirSync(installed).sort()).toEqual([
      'LICENSE',
      'README.md',
      'dist',
      'examples',
      'package.json',
    ]);
  });

  it('when a plain .js file of a "type": "module" project imports it, then it loads, and a TypeScript file type-checks', async () => {
    writeFileSync(
      path.join(esmProject, 'index.js'),
      "import { runBot, SkeinBot } from 'skein-sdk';\nconsole.log(typeof runBot, typeof new SkeinBot({ handleSignals: false }).onMessage);\n",
    );
    expect(await run(process.execPath, ['index.js'], esmProject)).toEqual({
      code: 0,
      output: 'function function\n',
    });

    // In a "type": "module" project a .ts file is an ES module; @types/node comes from the repository.
    writeFileSync(
      path.join(esmProject, 'tsconfig.json'),
      JSON.stringify(
        {
          ...TSCONFIG,
          compilerOptions: {
            ...TSCONFIG.compilerOptions,
            typeRoots: [path.join(PROJECT_ROOT, 'node_modules/@types')],
          },
        },
        null,
        2,
      ),
    );
    copyFileSync(path.join(SDK_DIR, 'examples/echo-bot.ts'), path.join(esmProject, 'echo-bot.ts'));
    const checked = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], esmProject);
    expect(checked).toEqual({ code: 0, output: '' });
  });
});

/** The contents of the messages that reached `client`'s user after `since` as replies to `parentId`. */
async function repliesTo(client: SkeinClient, since: string, parentId: string): Promise<string[]> {
  const page = await client.notifications({ since, limit: 100 });
  return page.notifications.flatMap(({ event }) =>
    event.type === 'sent'
      ? event.content.messages.filter((m) => m.parent_id === parentId).map((m) => m.content)
      : [],
  );
}

async function waitUntil(
  predicate: () => Promise<boolean>,
  what: () => string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
