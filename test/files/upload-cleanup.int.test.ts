// Issue 56: a rejected or aborted upload leaves no temporary part in files/tmp once its answer is
// written, and a start sweeps the parts a crash left. Every check reads the folder when the answer
// arrives (or, for a client that hung up, when the service writes it): nothing waits for it to clear.
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { request as httpRequest, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { registerUser, registerWriter, type TestUser } from '../support/factories.js';
import { startRedisServer } from '../support/redis-server.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { filesUnder, upload } from './file-helpers.js';

const LIMIT = 1024;

let api: TestServer;
let dataDir: string;
let tmpParts: string;
let writer: TestUser;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'skein-upload-cleanup-'));
  tmpParts = path.join(dataDir, 'files', 'tmp');
  api = await startTestServer({ SKEIN_DATA_DIR: dataDir, SKEIN_MAX_UPLOAD_BYTES: String(LIMIT) });
  writer = await registerWriter(api);
});

afterAll(async () => {
  await api.close();
});

const filePart = (name: string) =>
  `--XX\r\nContent-Disposition: form-data; name="${name}"; filename="a.txt"\r\n` +
  'Content-Type: text/plain\r\n\r\n';

/**
 * POSTs a hand-written multipart body (boundary XX); answers the status, the code, and what tmp held
 * when the service ended the answer and when its head arrived here.
 */
async function postForm(token: string, body: string) {
  const answered = whenNextUploadAnswerEnds();
  const res = await fetch(`${api.url}/v1/files/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'multipart/form-data; boundary=XX' },
    body,
  });
  const left = [...(await answered), ...filesUnder(tmpParts)];
  const answer = (await res.json()) as { code?: string };
  return { status: res.status, code: answer.code, left };
}

/**
 * Resolves, when the service ends its answer to the next upload request (even one whose client is
 * gone), with the files tmp held at that moment. The server runs in this process, so the answer's
 * end() is observable; it is restored at once.
 */
function whenNextUploadAnswerEnds(): Promise<string[]> {
  type End = (this: ServerResponse, ...args: unknown[]) => ServerResponse;
  const end = Reflect.get(ServerResponse.prototype, 'end') as End;
  return new Promise((resolve) => {
    const watching: End = function (...args) {
      if (this.req.url === '/v1/files/upload') {
        Reflect.set(ServerResponse.prototype, 'end', end);
        resolve(filesUnder(tmpParts));
      }
      return end.apply(this, args);
    };
    Reflect.set(ServerResponse.prototype, 'end', watching);
  });
}

/** Waits (bounded) for a condition the test itself needs before acting, e.g. a part being written. */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 10_000) throw new Error(`timed out waiting until ${what}`);
    await sleep(10);
  }
}

describe('POST /v1/files/upload leaves no temporary part', () => {
  it('when a multipart body is cut off inside the file, then 400 and tmp is empty when the answer arrives, every time', async () => {
    const answers = [];
    for (let i = 0; i < 15; i += 1) answers.push(await postForm(writer.token, `${filePart('file')}abc`));

    expect(answers).toEqual(Array(15).fill({ status: 400, code: 'bad_request', left: [] }));
  });

  it('when a body is cut off right after the part header, then 400 and tmp is empty when the answer arrives', async () => {
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push(await postForm(writer.token, filePart('file')));

    expect(answers).toEqual(Array(5).fill({ status: 400, code: 'bad_request', left: [] }));
  });

  it('when the file is larger than the limit, then 413 and tmp is empty when the answer arrives', async () => {
    const answers = [];
    for (let i = 0; i < 5; i += 1) {
      answers.push(await postForm(writer.token, `${filePart('file')}${'x'.repeat(LIMIT * 4)}\r\n--XX--\r\n`));
    }

    expect(answers).toEqual(Array(5).fill({ status: 413, code: 'payload_too_large', left: [] }));
  });

  it('when the form has a second file, then 400 and the first one is gone when the answer arrives', async () => {
    const body = `${filePart('file')}first\r\n${filePart('file')}second\r\n--XX--\r\n`;
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push(await postForm(writer.token, body));

    expect(answers).toEqual(Array(5).fill({ status: 400, code: 'bad_request', left: [] }));
  });

  it('when a malformed part follows the file, then 400 and the file is gone when the answer arrives', async () => {
    const body = `${filePart('file')}stored first\r\n--XX\r\nnot a header line\r\n\r\nx\r\n--XX--\r\n`;
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push(await postForm(writer.token, body));

    expect(answers).toEqual(Array(5).fill({ status: 400, code: 'bad_request', left: [] }));
  });

  it('when the caller lacks messages.write, then 403 and nothing was written', async () => {
    const reader = await registerUser(api);
    const rejected = await postForm(writer.token, `${filePart('file')}abc`);
    const refused = await postForm(reader.token, `${filePart('file')}abc\r\n--XX--\r\n`);

    expect(rejected).toEqual({ status: 400, code: 'bad_request', left: [] });
    expect(refused).toEqual({ status: 403, code: 'insufficient_scope', left: [] });
  });

  it('when the client hangs up in the middle of the file, then tmp is empty when the service ends its answer', async () => {
    const answered = whenNextUploadAnswerEnds();
    const req = httpRequest(`${api.url}/v1/files/upload`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${writer.token}`,
        'content-type': 'multipart/form-data; boundary=XX',
        'content-length': String(LIMIT),
      },
    });
    req.on('error', () => {
      // the hang-up below is the point
    });
    req.write(`${filePart('file')}the first bytes of a file that never ends`);
    await until(() => filesUnder(tmpParts).length > 0, 'the part is being written');
    req.destroy();

    expect(await answered).toEqual([]);
  });

  it('when an upload succeeds after all that, then only its blob is stored', async () => {
    const res = await upload(api, writer.token, 'kept');

    expect(res.status).toBe(200);
    expect(filesUnder(path.join(dataDir, 'files'))).toEqual([
      path.join((res.body.sha256 as string).slice(0, 2), (res.body.sha256 as string).slice(2)),
    ]);
  });
});

describe('start', () => {
  /** A data folder whose files/tmp holds parts a crash left: an hour old, and one written just now. */
  function crashedStore(): { dataDir: string; parts: string } {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'skein-upload-crash-'));
    const parts = path.join(dataDir, 'files', 'tmp');
    mkdirSync(parts, { recursive: true });
    const hourAgo = new Date(Date.now() - 3600_000);
    for (const name of ['left-by-a-crash.part', 'empty.part']) {
      writeFileSync(path.join(parts, name), name === 'empty.part' ? '' : 'half an upload');
      utimesSync(path.join(parts, name), hourAgo, hourAgo);
    }
    writeFileSync(path.join(parts, 'just-before-the-crash.part'), 'being written');
    return { dataDir, parts };
  }

  it('when an instance alone starts over parts a crash left, then it removes every one', async () => {
    const { dataDir, parts } = crashedStore();
    const restarted = await startTestServer({ SKEIN_DATA_DIR: dataDir });
    try {
      expect(filesUnder(parts)).toEqual([]);
    } finally {
      await restarted.close();
    }
  });

  it('when an instance that shares the store (REDIS_URL) starts, then it removes the abandoned parts and keeps one another instance may be writing', async () => {
    const redis = await startRedisServer();
    const { dataDir, parts } = crashedStore();
    const restarted = await startTestServer({ SKEIN_DATA_DIR: dataDir, REDIS_URL: redis.url });
    try {
      // Untouched for an hour: no request takes that long to send its body (Node ends it at 5
      // minutes); written a moment ago: another instance may be receiving it right now.
      expect(filesUnder(parts)).toEqual(['just-before-the-crash.part']);
    } finally {
      await restarted.close();
      await redis.stop();
    }
  });
});
