// The Python SDK as a user gets it (issue 39): the wheel of sdks/python (distribution skein-chat,
// import skein_chat) is built from a copy of its sources, installed into a fresh virtualenv outside
// the repository (its dependencies from PyPI), type-checked from a consumer's file under
// mypy --strict (through its py.typed), and both example bots run from that virtualenv against a
// service in the test process: the socket one and the webhook one each answer a message.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createManaged, postMessage, registerWriter, type TestUser } from '../support/factories.js';
import {
  PYTHON_SDK_DIR,
  pythonSdkVenv,
  runCommand,
  startPython,
  type CommandResult,
  type PythonProcess,
} from '../support/python-venv.js';
import { freePort } from '../support/test-neo4j.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// pip downloads the build backend and the SDK's dependencies; the machine may be loaded.
jest.setTimeout(600_000);

const scratch = mkdtempSync(path.join(os.tmpdir(), 'skein-py-package-'));
const venv = path.join(scratch, 'venv');
const installedPython = path.join(venv, 'bin/python');
let devPython: string;
/** What the wheel holds, where the fresh virtualenv imports skein_chat from, and the wheel. */
let installed: { listing: string[]; where: string; wheel: string };
let api: TestServer;
const bots: PythonProcess[] = [];

beforeAll(async () => {
  devPython = await pythonSdkVenv();
  installed = await buildAndInstall();
  api = await startTestServer({ SKEIN_WEBHOOK_ALLOW_PRIVATE: 'true' }, { webhooks: true });
}, 600_000);

afterAll(async () => {
  for (const bot of bots) {
    bot.kill('SIGKILL');
    await bot.exited;
  }
  await api?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * Builds the wheel from a copy of the sources (so the build leaves nothing in the repository) and
 * installs it into a fresh virtualenv.
 */
async function buildAndInstall(): Promise<{ listing: string[]; where: string; wheel: string }> {
  const source = path.join(scratch, 'source');
  mkdirSync(source);
  for (const file of ['pyproject.toml', 'README.md', 'LICENSE'])
    cpSync(path.join(PYTHON_SDK_DIR, file), path.join(source, file));
  cpSync(path.join(PYTHON_SDK_DIR, 'skein_chat'), path.join(source, 'skein_chat'), {
    recursive: true,
    filter: (from) => !from.includes('__pycache__'),
  });
  const wheels = path.join(scratch, 'wheels');
  succeeded(
    await runCommand(devPython, [
      '-m',
      'pip',
      'wheel',
      '--no-deps',
      '--disable-pip-version-check',
      '-q',
      '-w',
      wheels,
      source,
    ]),
    'pip wheel',
  );
  const wheel = path.join(wheels, 'skein_chat-0.2.0-py3-none-any.whl');
  if (!existsSync(wheel)) throw new Error(`pip wheel made no ${wheel}`);
  const listing = succeeded(
    await runCommand(devPython, [
      '-c',
      'import sys, zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))',
      wheel,
    ]),
    'listing the wheel',
  ).split('\n');

  succeeded(await runCommand('python3', ['-m', 'venv', venv]), 'python3 -m venv');
  succeeded(
    await runCommand(installedPython, ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', wheel]),
    'pip install of the wheel',
  );
  const where = succeeded(
    await runCommand(installedPython, ['-c', 'import skein_chat; print(skein_chat.__file__)'], {
      cwd: scratch,
    }),
    'import skein_chat',
  );
  return { listing, where, wheel };
}

function succeeded(result: CommandResult, what: string): string {
  if (result.code !== 0) throw new Error(`${what} failed (exit ${result.code}):\n${result.output}`);
  return result.output;
}

/** A writer and a bot the writer manages, with the bot's delegated session. */
async function writerAndBot(): Promise<{ alice: TestUser; botUid: string; botToken: string }> {
  const alice = await registerWriter(api);
  const bot = await createManaged(api, alice.token, { is_bot: true });
  const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
    token: alice.token,
    body: { managed_uid: bot.uid },
  });
  expect(delegated.status).toBe(200);
  return { alice, botUid: bot.uid, botToken: delegated.body.access_token };
}

/** Runs an example from a folder of its own with the installed package, as a user would. */
function startExample(name: string, env: Record<string, string>): PythonProcess {
  const folder = path.join(scratch, `run-${name}`);
  mkdirSync(folder, { recursive: true });
  // The examples ship in the package: `python -m skein_chat.examples.echo_bot`.
  const bot = startPython(installedPython, ['-m', `skein_chat.examples.${name}`], {
    cwd: folder,
    env: { SKEIN_URL: api.url, ...env },
  });
  bots.push(bot);
  return bot;
}

async function until(condition: () => boolean | Promise<boolean>, what: string, why: () => string) {
  const deadline = Date.now() + 120_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${why()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Alice sends a message to the bot and waits for the bot's reply; answers the reply's content. */
async function replyTo(
  alice: TestUser,
  botUid: string,
  content: string,
  bot: PythonProcess,
): Promise<string> {
  const sent = await postMessage(api, alice.token, { content, recipients: [`uid:${botUid}`] });
  let replyId: string | undefined;
  await until(
    async () => {
      const tree = await api.request<{ ids: string[] }>('GET', `/v1/messages/${sent.id}/tree-ids`, {
        token: alice.token,
      });
      replyId = tree.body.ids.find((id) => id !== sent.id);
      return replyId !== undefined;
    },
    `the bot's reply to "${content}"`,
    bot.output,
  );
  const reply = await api.request<{ content: string; author: { uid: string } }>(
    'GET',
    `/v1/messages/${replyId}`,
    { token: alice.token },
  );
  expect(reply.body.author.uid).toBe(botUid);
  return reply.body.content;
}

describe('Python SDK: the wheel, installed outside the repository', () => {
  it('when the wheel is installed into a fresh virtualenv, then it imports from there, ships py.typed, and a consumer type-checks under mypy --strict', async () => {
    expect(installed.listing).toEqual(
      expect.arrayContaining(['skein_chat/py.typed', 'skein_chat/bot.py', 'skein_chat/client.py']),
    );
    expect(installed.where.trim().startsWith(path.join(venv, 'lib'))).toBe(true);

    // A bot author's code, checked by mypy against the installed package only (cwd outside the repo).
    const consumer = path.join(scratch, 'consumer');
    mkdirSync(consumer);
    writeFileSync(path.join(consumer, 'my_bot.py'), CONSUMER);
    writeFileSync(path.join(consumer, 'wrong.py'), WRONG);
    const mypy = (file: string) =>
      runCommand(
        devPython,
        [
          '-m',
          'mypy',
          '--strict',
          '--python-executable',
          installedPython,
          '--cache-dir',
          path.join(scratch, 'mypy-cache'),
          '--no-error-summary',
          file,
        ],
        { cwd: consumer },
      );
    succeeded(await mypy('my_bot.py'), 'mypy --strict my_bot.py');
    // The hints are really read from the package: a wrong use is caught.
    const wrong = await mypy('wrong.py');
    expect(wrong.code).toBe(1);
    expect(wrong.output).toContain('Incompatible return value type (got "str", expected "int")');
  });

  it('when the wheel is checked for a registry, then twine check passes and it carries its examples, license and metadata', async () => {
    expect(installed.listing).toEqual(
      expect.arrayContaining([
        'skein_chat/examples/echo_bot.py',
        'skein_chat/examples/context_bot.py',
        'skein_chat/examples/webhook_bot.py',
        'skein_chat/examples/stream_bot.py',
        'skein_chat-0.2.0.dist-info/licenses/LICENSE',
      ]),
    );
    const twine = succeeded(
      await runCommand(devPython, ['-m', 'twine', 'check', '--strict', installed.wheel]),
      'twine check',
    );
    expect(twine).toContain('PASSED');
    const metadata = succeeded(
      await runCommand(installedPython, [
        '-c',
        'import importlib.metadata as m; print(m.metadata("skein-chat").as_string())',
      ]),
      'reading the installed metadata',
    );
    expect(metadata).toMatch(/^License-Expression: MIT$/m);
    expect(metadata).toMatch(/^Keywords: .*bot/m);
    expect(metadata).toMatch(/^Requires-Python: >=3\.11$/m);
    expect(metadata).toMatch(/^Project-URL: Source, https:\/\//m);
    expect(metadata).toMatch(/^Classifier: Programming Language :: Python :: 3\.11$/m);
    expect(metadata).toMatch(/^Classifier: Typing :: Typed$/m);
    expect(metadata).toMatch(/^Description-Content-Type: text\/markdown$/m);
  });

  it('when the installed socket example runs with a bot token, then it answers a message and stops cleanly on SIGTERM', async () => {
    const { alice, botUid, botToken } = await writerAndBot();
    const cursorFile = path.join(scratch, 'echo.cursor');
    const bot = startExample('echo_bot', { SKEIN_TOKEN: botToken, SKEIN_CURSOR_FILE: cursorFile });
    await until(() => existsSync(cursorFile), 'the bot to connect', bot.output);
    expect(await replyTo(alice, botUid, 'hello from the package test', bot)).toBe(
      'echo: hello from the package test',
    );
    bot.kill('SIGTERM');
    expect(await bot.exited).toBe(0);
  });

  it('when the installed webhook example runs, then it proves its endpoint and answers a message', async () => {
    const { alice, botUid, botToken } = await writerAndBot();
    const bot = startExample('webhook_bot', { SKEIN_TOKEN: botToken, BOT_PORT: String(await freePort()) });
    await until(() => bot.output().includes('takes webhooks at'), 'the endpoint to be proved', bot.output);
    expect(await replyTo(alice, botUid, 'hello by webhook', bot)).toBe('echo: hello by webhook');
    bot.kill('SIGTERM');
    expect(await bot.exited).toBe(0);
  });
});

const CONSUMER = `"""A bot author's own code, type-checked against the installed skein-chat."""
from skein_chat import JSON, AsyncSkeinClient, Bot, Message, SkeinClient, SocketRefused


async def echo(message: Message) -> None:
    reply: JSON = await message.reply(f"echo: {message.content}")
    parent: str | None = message.parent_id
    conversation: JSON = await message.context()
    ancestors: list[JSON] = message.ancestors
    print(reply["id"], parent, message.author_tag, message.event_type, conversation["entries"], ancestors)


def on_a_thread(message: Message) -> JSON:
    return message.context_sync()


async def unread(url: str, token: str) -> list[JSON]:
    async with AsyncSkeinClient(url, token=token) as client:
        page: JSON = await client.notifications(since=None, limit=10)
        users: list[JSON] = await client.search_users("ada", limit=5)
        context: JSON = await client.message_context("0123abcd", limit=10, max_chars=2000)
        options: JSON = await client.set_endpoint_options("0123abcd", include_context=True)
        return [page, *users, context, options]


def main() -> int:
    bot = Bot.from_env(cursor_file="bot.cursor", concurrency=2, include_context=True)
    bot.on_message(echo)
    with SkeinClient("http://localhost:8080", api_key="sk_example") as client:
        print(client.me()["user_tag"])
    try:
        bot.run()
    except SocketRefused as refused:
        return refused.code
    return 0
`;

const WRONG = `from skein_chat import Message


def length(message: Message) -> int:
    return message.content
`;
