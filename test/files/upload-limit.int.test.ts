import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { filesUnder, upload } from './file-helpers.js';

let api: TestServer;
let dataDir: string;
let writer: TestUser;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'skein-upload-limit-'));
  api = await startTestServer({ SKEIN_DATA_DIR: dataDir, SKEIN_MAX_UPLOAD_BYTES: '1024' });
  writer = await registerWriter(api);
});

afterAll(async () => {
  await api.close();
});

describe('upload size limit', () => {
  it('when a file is larger than SKEIN_MAX_UPLOAD_BYTES, then 413 payload_too_large and nothing is kept on disk', async () => {
    const res = await upload(api, writer.token, new Uint8Array(4096).fill(65));

    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'payload_too_large' });
    expect(filesUnder(path.join(dataDir, 'files'))).toEqual([]);
  });

  it('when a file is exactly the limit, then it is accepted', async () => {
    const res = await upload(api, writer.token, new Uint8Array(1024).fill(66));

    expect(res.status).toBe(200);
    expect(res.body.size).toBe(1024);
  });
});
