// POST /v1/chat/completions through the official `openai` Python package (pinned in
// test/support/python-venv.ts), against bots run by the Python SDK's own examples (echo, stream and
// context bots, unchanged: no new bot code answers a completion). One Python process runs every
// exchange and prints one JSON line per case; the assertions read them.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { createKey, createManaged, registerWriter, type TestUser } from '../support/factories.js';
import {
  PYTHON_SDK_DIR,
  pythonTestVenv,
  runCommand,
  startPython,
  type PythonProcess,
} from '../support/python-venv.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

// The first run may install the openai package into the SDK's virtualenv; the machine may be loaded.
jest.setTimeout(600_000);

const CLIENT = `
import json, sys
import openai
from openai import OpenAI

url, key, read_key, echo, streamer, context_bot, silent, strict_url = sys.argv[1:9]
client = OpenAI(base_url=url, api_key=key, max_retries=0, timeout=60)
out = {}

def fail(name, call):
    try:
        call()
        out[name] = {"error": None}
    except openai.APIStatusError as error:
        out[name] = {"error": type(error).__name__, "status": error.status_code, "code": error.code,
                     "type": error.type, "param": error.param, "body": error.body,
                     "retry_after": error.response.headers.get("retry-after")}

plain = client.chat.completions.create(model=echo, messages=[{"role": "user", "content": "hi from python"}])
out["plain"] = {"content": plain.choices[0].message.content, "finish": plain.choices[0].finish_reason,
                "object": plain.object, "usage": plain.usage.model_dump(), "skein": plain.model_extra.get("skein")}

pieces = []
finish = None
for chunk in client.chat.completions.create(model=streamer, messages=[{"role": "user", "content": "graphs"}], stream=True):
    if chunk.choices and chunk.choices[0].delta.content:
        pieces.append(chunk.choices[0].delta.content)
    if chunk.choices and chunk.choices[0].finish_reason:
        finish = chunk.choices[0].finish_reason
out["stream"] = {"pieces": pieces, "finish": finish}

turns = [{"role": "system", "content": "be brief"}]
threads, answers = [], []
for question in ["one", "two", "three"]:
    turns.append({"role": "user", "content": question})
    answer = client.chat.completions.create(model=context_bot, messages=turns)
    text = answer.choices[0].message.content
    turns.append({"role": "assistant", "content": text})
    threads.append(answer.model_extra["skein"]["thread_id"])
    answers.append(text)
out["turns"] = {"threads": threads, "answers": answers}

msg = [{"role": "user", "content": "refused from python"}]
fail("not_found", lambda: client.chat.completions.create(model="no-such-model-anywhere", messages=msg))
fail("auth", lambda: OpenAI(base_url=url, api_key="sk_wrong", max_retries=0).chat.completions.create(model=echo, messages=msg))
fail("scope", lambda: OpenAI(base_url=url, api_key=read_key, max_retries=0).chat.completions.create(model=echo, messages=msg))
fail("invalid", lambda: client.chat.completions.create(model=echo, messages=[{"role": "assistant", "content": "x"}]))

strict = OpenAI(base_url=strict_url, api_key=key, max_retries=0, timeout=60)
import threading
held = {}
def hold():
    try:
        strict.chat.completions.create(model=silent, messages=[{"role": "user", "content": "silent python"}])
    except openai.APIStatusError as error:
        held["error"] = {"error": type(error).__name__, "status": error.status_code, "code": error.code,
                         "type": error.type, "should_retry": error.response.headers.get("x-should-retry")}
waiting = threading.Thread(target=hold)
waiting.start()
import time
time.sleep(1.0)
fail("rate", lambda: strict.chat.completions.create(model=silent, messages=[{"role": "user", "content": "x"}]))
waiting.join()
out["timeout"] = held.get("error")
print(json.dumps(out))
`;

let api: TestServer;
let strict: TestServer;
let python: string;
let asker: TestUser;
const bots: PythonProcess[] = [];
const tags: Record<'echo' | 'stream' | 'context', string> = { echo: '', stream: '', context: '' };
let silent: string;

async function startBot(manager: TestUser, example: keyof typeof tags): Promise<void> {
  const bot = await createManaged(api, manager.token, { is_bot: true });
  const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
    token: manager.token,
    body: { managed_uid: bot.uid },
  });
  const process = startPython(python, ['-m', `skein_chat.examples.${example}_bot`], {
    cwd: PYTHON_SDK_DIR,
    env: { SKEIN_URL: api.url, SKEIN_TOKEN: delegated.body.access_token, NO_PROXY: '*', no_proxy: '*' },
  });
  bots.push(process);
  tags[example] = bot.user_tag;
  const deadline = Date.now() + 120_000;
  while (!process.output().includes('connected')) {
    if (Date.now() > deadline) throw new Error(`the ${example} bot did not connect:\n${process.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  [python, api, strict] = await Promise.all([
    pythonTestVenv(),
    startTestServer({ SKEIN_COMPLETION_TIMEOUT_SECONDS: '30' }),
    startTestServer({ SKEIN_COMPLETION_TIMEOUT_SECONDS: '4', SKEIN_MAX_OPEN_COMPLETIONS_PER_USER: '1' }),
  ]);
  const manager = await registerWriter(api);
  asker = await registerWriter(api, { apiAccess: true });
  await Promise.all([startBot(manager, 'echo'), startBot(manager, 'stream'), startBot(manager, 'context')]);
  silent = (await createManaged(api, manager.token, { is_bot: true })).user_tag;
}, 600_000);

afterAll(async () => {
  for (const bot of bots) bot.kill('SIGTERM');
  await Promise.all(bots.map((bot) => bot.exited));
  await Promise.all([api?.close(), strict?.close()]);
});

interface Failure {
  error: string | null;
  status: number;
  code: string;
  type: string;
  param: string | null;
  body: Record<string, unknown>;
  retry_after: string | null;
}

describe('POST /v1/chat/completions with the official openai Python client', () => {
  it('when Python SDK bots answer, then a plain completion, a stream, three turns in one thread and each error class come through', async () => {
    const { key } = await createKey(api, asker.token);
    const { key: readKey } = await createKey(api, asker.token, { scopes_cap: 'messages.read' });
    const result = await runCommand(
      python,
      [
        '-c',
        CLIENT,
        `${api.url}/v1`,
        key,
        readKey,
        tags.echo,
        tags.stream,
        tags.context,
        silent,
        `${strict.url}/v1`,
      ],
      { env: { NO_PROXY: '*', no_proxy: '*' } },
    );
    if (result.code !== 0)
      throw new Error(`the openai client failed (exit ${result.code}):\n${result.output}`);
    const out = JSON.parse(result.output.trim().split('\n').at(-1)!) as Record<string, unknown>;

    expect(out.plain).toMatchObject({
      content: 'echo: hi from python',
      finish: 'stop',
      object: 'chat.completion',
      usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
      skein: { thread_id: expect.any(String), reply_message_id: expect.any(String) },
    });

    const stream = out.stream as { pieces: string[]; finish: string };
    expect(stream.pieces.join('')).toBe('You asked: "graphs". Here is a long answer, word by word. ');
    expect(stream.pieces.length).toBeGreaterThan(1);
    expect(stream.finish).toBe('stop');

    const turns = out.turns as { threads: string[]; answers: string[] };
    expect(new Set(turns.threads).size).toBe(1);
    // The context bot counts what it reads: the system prelude and every turn so far, oldest first.
    expect(turns.answers).toEqual([
      '2 message(s) in view; the first: "be brief"',
      '4 message(s) in view; the first: "be brief"',
      '6 message(s) in view; the first: "be brief"',
    ]);

    const failure = (name: string) => out[name] as Failure;
    expect(failure('not_found')).toMatchObject({
      error: 'NotFoundError',
      status: 404,
      code: 'model_not_found',
    });
    expect(failure('not_found').body).toMatchObject({
      code: 'model_not_found',
      type: 'not_found_error',
      message: expect.any(String),
    });
    expect(failure('auth')).toMatchObject({ error: 'AuthenticationError', status: 401 });
    expect(failure('scope')).toMatchObject({
      error: 'PermissionDeniedError',
      status: 403,
      code: 'insufficient_scope',
    });
    expect(failure('invalid')).toMatchObject({
      error: 'UnprocessableEntityError',
      status: 422,
      code: 'validation_error',
      param: 'messages',
    });
    expect(failure('rate')).toMatchObject({ error: 'RateLimitError', status: 429, code: 'rate_limited' });
    expect(Number(failure('rate').retry_after)).toBeGreaterThan(0);
    expect(out.timeout).toEqual({
      error: 'InternalServerError',
      status: 504,
      code: 'completion_timeout',
      type: 'timeout_error',
      should_retry: 'false',
    });
  });
});
