import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { postMessage, registerUser, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { download, filesUnder, upload, uploadOk, type UploadAnswer } from './file-helpers.js';

let api: TestServer;
let dataDir: string;
let alice: TestUser;
let bob: TestUser;
let stranger: TestUser;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const unique = (label: string) => `${label} ${randomBytes(8).toString('hex')}\n`;

beforeAll(async () => {
  // A data directory of its own, so what is on disk is exactly what these tests stored.
  dataDir = mkdtempSync(path.join(tmpdir(), 'skein-files-'));
  api = await startTestServer({ SKEIN_DATA_DIR: dataDir });
  [alice, bob, stranger] = await Promise.all([registerWriter(api), registerWriter(api), registerWriter(api)]);
});

afterAll(async () => {
  await api.close();
});

/** Uploads one hand-written multipart part: its header lines after Content-Disposition, then its content. */
async function uploadOnePart(token: string, filename: string, headerLines: string, content: string) {
  const boundary = `----skein${randomBytes(6).toString('hex')}`;
  const body =
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
    `${headerLines}\r\n${content}\r\n--${boundary}--\r\n`;
  return fetch(`${api.url}/v1/files/upload`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
    },
    body,
  });
}

describe('POST /v1/files/upload', () => {
  it('when a writer uploads a file, then the metadata describes it and the blob is stored by its SHA-256', async () => {
    const content = unique('hello file');
    const res = await upload(api, alice.token, content, { filename: 'hello.txt', type: 'text/plain' });

    expect(res.status).toBe(200);
    const digest = sha256(content);
    expect(res.body).toEqual({
      file_id: expect.stringMatching(/^[0-9a-f]{8}$/),
      filename: 'hello.txt',
      content_type: 'text/plain',
      size: Buffer.byteLength(content),
      sha256: digest,
      url: `${api.ctx.config.publicUrl}/v1/files/${res.body.file_id as string}`,
    });
    const blob = path.join(dataDir, 'files', digest.slice(0, 2), digest.slice(2));
    expect(readFileSync(blob, 'utf8')).toBe(content);
  });

  it('when the same content is uploaded twice, then there are two file ids over one stored blob', async () => {
    const content = unique('twice');
    const first = await uploadOk(api, alice.token, content, { filename: 'one.txt' });
    const second = await uploadOk(api, bob.token, content, { filename: 'two.txt' });

    expect(second.file_id).not.toBe(first.file_id);
    expect(second.sha256).toBe(first.sha256);
    const digest = sha256(content);
    const stored = filesUnder(path.join(dataDir, 'files'));
    expect(stored.filter((file) => file === path.join(digest.slice(0, 2), digest.slice(2)))).toHaveLength(1);
    expect(stored.filter((file) => file.startsWith('tmp'))).toEqual([]);
  });

  it('when the part declares a type with parameters, then the stored type is its lower-case essence', async () => {
    const res = await uploadOnePart(
      alice.token,
      'page.html',
      'Content-Type: Text/HTML; charset=utf-8\r\n',
      '<p>hi</p>',
    );
    expect(res.status).toBe(200);
    const file = (await res.json()) as UploadAnswer;
    expect(file.content_type).toBe('text/html');
    // Served as an attachment that browsers neither sniff nor run.
    const served = await download(api, alice.token, file.file_id);
    expect(served.headers.get('content-type')).toBe('text/html');
    expect(served.headers.get('content-disposition')).toBe('attachment; filename=page.html');
    expect(served.headers.get('content-security-policy')).toContain('sandbox');
  });

  it('when the part declares no Content-Type, then it is stored as text/plain, as the document says', async () => {
    const res = await uploadOnePart(alice.token, 'pixel.png', '', '\x89PNG');
    expect(res.status).toBe(200);
    expect(((await res.json()) as UploadAnswer).content_type).toBe('text/plain');
    const doc = await api.request<{ paths: Record<string, { post: { description: string } }> }>(
      'GET',
      '/v1/openapi.json',
    );
    expect(doc.body.paths['/v1/files/upload']?.post.description).toContain(
      'a part that declares no Content-Type (or one that cannot be parsed) is `text/plain`',
    );
  });

  it('when the form has no `file` part, then 400 missing_field', async () => {
    const form = new FormData();
    form.append('other', 'just text');
    const res = await fetch(`${api.url}/v1/files/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}` },
      body: form,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ detail: expect.any(String), code: 'missing_field' });
  });

  it('when the file comes under another field name, then 400 and nothing is left in tmp', async () => {
    const res = await upload(api, alice.token, unique('wrong field'), { field: 'attachment' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('bad_request');
    expect(filesUnder(path.join(dataDir, 'files', 'tmp'))).toEqual([]);
  });

  it('when the body is not multipart, then 400 bad_request', async () => {
    const res = await api.request('POST', '/v1/files/upload', {
      token: alice.token,
      body: { file: 'aGVsbG8=' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'bad_request' });
  });

  it('when nobody is logged in, then 401', async () => {
    const res = await upload(api, undefined, unique('anonymous'));
    expect(res.status).toBe(401);
  });

  it('when the caller lacks messages.write, then 403 insufficient_scope', async () => {
    const reader = await registerUser(api);
    const res = await upload(api, reader.token, unique('read only'));
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
  });
});

describe('attachments and GET /v1/files/{file_id}', () => {
  it('when a message is posted with an uploaded file, then its attachments carry the metadata', async () => {
    const file = await uploadOk(api, alice.token, unique('attached'), { filename: 'report.txt' });
    const message = await postMessage(api, alice.token, { content: 'see attached', files: [file] });

    expect(message.attachments).toEqual([file]);
    const read = await api.request('GET', `/v1/messages/${message.id}`, { token: alice.token });
    expect(read.body.attachments).toEqual([file]);
  });

  it('when the uploader downloads, then the content comes with safe headers', async () => {
    const content = unique('download me');
    const file = await uploadOk(api, alice.token, content, { filename: 'notes.txt', type: 'text/plain' });

    const res = await download(api, alice.token, file.file_id);

    expect(res.status).toBe(200);
    expect(res.bytes.toString('utf8')).toBe(content);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(content)));
    expect(res.headers.get('content-disposition')).toBe('attachment; filename=notes.txt');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('etag')).toBe(`"${file.sha256}"`);
    expect(res.headers.get('cache-control')).toBe('private');
  });

  it('when a recipient of a message carrying the file downloads it, then 200; a stranger and a random id get the same 404', async () => {
    const content = unique('for bob');
    const file = await uploadOk(api, alice.token, content);
    await postMessage(api, alice.token, { content: 'for you', recipients: [bob.tag], files: [file] });

    const byBob = await download(api, bob.token, file.file_id);
    expect(byBob.status).toBe(200);
    expect(byBob.bytes.toString('utf8')).toBe(content);

    const byStranger = await download(api, stranger.token, file.file_id);
    const unknown = await download(api, stranger.token, randomBytes(4).toString('hex'));
    expect(byStranger.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(byStranger.bytes.toString('utf8')).toBe(unknown.bytes.toString('utf8'));
    expect(JSON.parse(unknown.bytes.toString('utf8'))).toEqual({
      detail: 'File not found.',
      code: 'file_not_found',
    });
  });

  it('when the file is only uploaded, not attached, then only its uploader can download it', async () => {
    const file = await uploadOk(api, alice.token, unique('private draft'));
    expect((await download(api, alice.token, file.file_id)).status).toBe(200);
    expect((await download(api, bob.token, file.file_id)).status).toBe(404);
  });

  it('when a message carrying the file is public, then any authenticated user can download it', async () => {
    const file = await uploadOk(api, alice.token, unique('public'));
    await postMessage(api, alice.token, { content: 'for everyone', public: true, files: [file] });
    expect((await download(api, stranger.token, file.file_id)).status).toBe(200);
  });

  it('when the file name is a path, then only its base name is kept', async () => {
    const file = await uploadOk(api, alice.token, unique('traversal'), { filename: '../../etc/passwd' });
    expect(file.filename).toBe('passwd');
    const res = await download(api, alice.token, file.file_id);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename=passwd');
  });

  it('when the file name holds quotes and line breaks, then they cannot break the header', async () => {
    const file = await uploadOk(api, alice.token, unique('hostile'), { filename: 'a"b\r\n.txt' });
    expect(file.filename).toBe('a"b.txt');
    const res = await download(api, alice.token, file.file_id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="a\\"b.txt"');
  });

  it('when the file name is not ASCII, then Content-Disposition carries it RFC 5987 encoded', async () => {
    const file = await uploadOk(api, alice.token, unique('unicode'), { filename: 'résumé.txt' });
    expect(file.filename).toBe('résumé.txt');
    const res = await download(api, alice.token, file.file_id);
    expect(res.headers.get('content-disposition')).toContain("filename*=UTF-8''r%C3%A9sum%C3%A9.txt");
  });

  it("when another user posts with someone else's file, then that item fails with 404 file_not_found", async () => {
    const file = await uploadOk(api, alice.token, unique('not yours'));
    const res = await api.request<{ ok: boolean; error?: Record<string, unknown> }[]>(
      'POST',
      '/v1/messages',
      {
        token: bob.token,
        body: { content: 'stolen', files: [{ file_id: file.file_id }] },
      },
    );
    expect(res.status).toBe(200);
    expect(res.body[0]).toEqual({
      index: 0,
      ok: false,
      error: { status: 404, code: 'file_not_found', detail: expect.any(String) },
    });
  });

  it('when a client stops reading a download, then the hang-up is noted at debug level and no error is logged', async () => {
    // More than loopback socket buffers hold, so the server is still writing when the client leaves.
    const file = await uploadOk(api, alice.token, randomBytes(24 * 1024 * 1024), { filename: 'big.bin' });
    const errors = jest.spyOn(api.ctx.log, 'error');
    const debug = jest.spyOn(api.ctx.log, 'debug');
    const logged = (spy: typeof debug, pattern: RegExp) =>
      spy.mock.calls.some((args) => args.some((arg) => typeof arg === 'string' && pattern.test(arg)));
    try {
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const req = get(`${api.url}/v1/files/${file.file_id}`, {
          headers: { authorization: `Bearer ${alice.token}` },
        });
        // Hang up after the first chunk, as `curl … | head -c 100` does.
        req.on('response', (res) =>
          res.once('data', () => {
            req.destroy();
            resolve(res.statusCode);
          }),
        );
        req.on('error', reject);
      });
      expect(status).toBe(200);
      // The server hears of the hang-up on its own time: wait until the error handler has seen it.
      while (!logged(debug, /closed the connection/) && !logged(errors, /request failed/)) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(logged(errors, /request failed/)).toBe(false);
    } finally {
      errors.mockRestore();
      debug.mockRestore();
    }
  });

  it('when the file id is malformed, then 422', async () => {
    const res = await api.request('GET', '/v1/files/..%2F..%2Fetc', { token: alice.token });
    expect(res.status).toBe(422);
  });
});

describe('GraphQL Query.file', () => {
  const query =
    'query ($id: String!) { file(file_id: $id) { file_id filename content_type size sha256 url } }';

  it('when the uploader asks, then the metadata is the upload answer', async () => {
    const file = await uploadOk(api, alice.token, unique('graphql'), { filename: 'g.txt' });
    const res = await api.graphql<{ file: unknown }>(query, { id: file.file_id }, { token: alice.token });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data?.file).toEqual(file);
  });

  it('when a stranger asks, then the error is file_not_found', async () => {
    const file = await uploadOk(api, alice.token, unique('graphql hidden'));
    const res = await api.graphql(query, { id: file.file_id }, { token: stranger.token });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('file_not_found');
  });
});
