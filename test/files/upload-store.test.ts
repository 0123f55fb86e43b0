// The upload side of the file store (file-store.ts, issue 56), below multer: a refused request's parts
// are removed even while still streaming, and parts abandoned while the service runs are swept later.
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { Request } from 'express';
import type { StorageEngine } from 'multer';
import { openUploadStore, type UploadStore } from '../../src/components/files/file-store.js';
import { createLogger } from '../../src/platform/logger.js';
import { filesUnder } from './file-helpers.js';

type MulterFile = Parameters<StorageEngine['_handleFile']>[1];

const MINUTE = 60_000;

function newStore(): { store: UploadStore; parts: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'skein-upload-store-'));
  return {
    store: openUploadStore(root, createLogger('silent'), { shared: true }),
    parts: path.join(root, 'tmp'),
  };
}

/** Hands a file part to the storage engine as multer does; resolves with its outcome. */
function handle(store: UploadStore, req: Request, stream: Readable): Promise<unknown> {
  return new Promise((resolve) => {
    store.storage._handleFile(req, { stream } as unknown as MulterFile, (error, info) =>
      resolve(error ?? info),
    );
  });
}

function plant(parts: string, name: string, modifiedAt: number): void {
  mkdirSync(parts, { recursive: true });
  writeFileSync(path.join(parts, name), 'some bytes');
  utimesSync(path.join(parts, name), new Date(modifiedAt), new Date(modifiedAt));
}

afterEach(() => {
  jest.restoreAllMocks();
});

describe('upload parts', () => {
  it('when a refused request still has a part streaming, then discarding cuts it off and removes it', async () => {
    const { store, parts } = newStore();
    const req = {} as Request;
    const endless = new PassThrough();
    const outcome = handle(store, req, endless);
    endless.write('the first bytes of a body that never ends');

    await store.discardParts(req);

    expect(filesUnder(parts)).toEqual([]);
    expect(await outcome).toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('when a refused request has a complete part, then discarding removes it', async () => {
    const { store, parts } = newStore();
    const req = {} as Request;
    expect(await handle(store, req, Readable.from(['whole']))).toMatchObject({ size: 5 });
    expect(filesUnder(parts)).toHaveLength(1);

    await store.discardParts(req);

    expect(filesUnder(parts)).toEqual([]);
  });

  it('when an upload comes more than 15 minutes after the last sweep, then parts abandoned since are removed', async () => {
    const { store, parts } = newStore();
    const opened = Date.now();
    plant(parts, 'abandoned.part', opened - 60 * MINUTE);
    const soon = {} as Request;
    await handle(store, soon, Readable.from(['soon']));
    await store.discardParts(soon);
    // Swept at the store's opening only: a part abandoned afterwards waits for the next sweep.
    expect(filesUnder(parts)).toEqual(['abandoned.part']);

    const later = opened + 16 * MINUTE;
    plant(parts, 'in-flight.part', later - MINUTE);
    jest.spyOn(Date, 'now').mockReturnValue(later);
    const req = {} as Request;
    await handle(store, req, Readable.from(['later']));
    await store.discardParts(req);

    expect(filesUnder(parts)).toEqual(['in-flight.part']);
  });
});
