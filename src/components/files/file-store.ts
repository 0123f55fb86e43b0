// The content-addressed file store in SKEIN_FILES_DIR (default $SKEIN_DATA_DIR/files): a blob lives
// at <root>/<first 2 hex of its SHA-256>/<remaining 62 hex>, so identical content is stored once and a
// path on disk is derived only from a validated digest, never from anything a client named.
// Uploads stream into <root>/tmp/ while being hashed, then are renamed into place (atomic on one
// file system), so a reader never sees a half-written blob. Several instances share the store by
// mounting one folder (NFS, EFS, a shared volume) at SKEIN_FILES_DIR: blobs are never changed once
// written, and the rename makes a blob appear whole to every instance. A part of an upload that is
// refused or cut off is removed before the upload is answered, and parts a crash left are swept when
// the store is opened (openUploadStore).
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, readdirSync, statSync, unlinkSync } from 'node:fs';
import { mkdir, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import type { StorageEngine } from 'multer';
import type { Logger } from '../../platform/logger.js';

/** An upload streamed to a temporary file, hashed on the way. */
export interface StoredUpload {
  tempPath: string;
  /** The name the client gave (untrusted; sanitized before it is stored). */
  originalName: string;
  /** The media type the client gave (untrusted; validated before it is stored). */
  mimeType: string;
  size: number;
  sha256: string;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

function tempDir(root: string): string {
  return path.join(root, 'tmp');
}

/** Where the blob with this digest lives; refuses anything but 64 lowercase hex characters. */
export function blobPath(root: string, sha256: string): string {
  if (!SHA256_HEX.test(sha256)) throw new Error(`not a SHA-256 digest: ${JSON.stringify(sha256)}`);
  return path.join(root, sha256.slice(0, 2), sha256.slice(2));
}

/** Size of the stored blob, or null when it is missing. */
export async function blobSize(root: string, sha256: string): Promise<number | null> {
  try {
    return (await stat(blobPath(root, sha256))).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Moves an upload into its content address. When that blob exists already (same content uploaded
 * before) the temporary copy is dropped instead: identical content is stored once.
 */
export async function commitBlob(root: string, upload: StoredUpload): Promise<void> {
  const target = blobPath(root, upload.sha256);
  if ((await blobSize(root, upload.sha256)) !== null) {
    await discardUpload(upload);
    return;
  }
  await mkdir(path.dirname(target), { recursive: true });
  // A concurrent identical upload may win the race; rename then replaces a blob with the same bytes.
  await rename(upload.tempPath, target);
}

/** Removes an upload's temporary file; a file already committed (renamed away) is not an error. */
export async function discardUpload(upload: Pick<StoredUpload, 'tempPath'>): Promise<void> {
  try {
    await unlink(upload.tempPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * A part untouched for this long belongs to no request, on this instance or another sharing the
 * store: Node's HTTP server ends a request that has not sent its whole body within its
 * requestTimeout (5 minutes by default, which service.ts keeps), and a part that was received is
 * committed or removed before its answer. A younger part may be another instance's upload in progress.
 */
const ABANDONED_AFTER_MS = 15 * 60_000;

/** A part one request's upload is writing, or wrote. */
interface Part {
  tempPath: string;
  content: Readable;
  /** Settles once the part is complete (handed to multer) or failed (and removed). */
  settled: Promise<void>;
}

/** The temporary side of the store: where multipart uploads are streamed before they are committed. */
export interface UploadStore {
  /** The multer storage engine: each file part goes to tmp/ while its SHA-256 and size are computed. */
  storage: StorageEngine;
  /**
   * Removes every part the request's upload created, once it is no longer being written (a part
   * still streaming is cut off). A rejected upload awaits this before it is answered: multer itself
   * answers as soon as the form fails, while a part it has no path for yet (its write was still
   * settling) is removed later, so the answer could come first.
   */
  discardParts(req: Request): Promise<void>;
}

/**
 * Opens the upload side of the store at start: removes the parts a crash left, then every
 * ABANDONED_AFTER_MS at most, on an upload, does so again. An instance alone (`shared` false: no
 * REDIS_URL, so no other instance can be writing to the store) removes every part at start; one of
 * several only those no request can still be writing, and the later sweeps catch the parts a crash
 * left just before a restart.
 */
export function openUploadStore(root: string, log: Logger, options: { shared: boolean }): UploadStore {
  const dir = tempDir(root);
  const partsOf = new WeakMap<Request, Part[]>();
  let sweptAt = Date.now();
  sweepAbandonedParts(dir, options.shared ? sweptAt : Infinity, log);
  return {
    storage: {
      _handleFile(req: Request, file, callback) {
        if (Date.now() - sweptAt > ABANDONED_AFTER_MS) {
          sweptAt = Date.now();
          sweepAbandonedParts(dir, sweptAt, log);
        }
        const tempPath = path.join(dir, `${randomBytes(12).toString('hex')}.part`);
        const written = writePart(dir, tempPath, file.stream);
        const part: Part = {
          tempPath,
          content: file.stream,
          settled: written.then(
            () => undefined,
            () => undefined,
          ),
        };
        partsOf.set(req, [...(partsOf.get(req) ?? []), part]);
        written.then(
          // multer's File type has no digest field: `filename` (the name within the store) carries it.
          ({ size, sha256 }) => callback(null, { path: tempPath, size, filename: sha256 }),
          (error: Error) => callback(error),
        );
      },
      // Multer calls this for the parts of a failed form it knows the path of (413, a second file...).
      _removeFile(_req: Request, file, callback) {
        discardUpload({ tempPath: file.path }).then(
          () => callback(null),
          (error: Error) => callback(error),
        );
      },
    },
    async discardParts(req) {
      const parts = partsOf.get(req) ?? [];
      partsOf.delete(req);
      await Promise.all(
        parts.map(async (part) => {
          part.content.destroy();
          await part.settled;
          await discardUpload(part).catch((err: unknown) =>
            log.warn({ err, path: part.tempPath }, 'could not remove an upload part'),
          );
        }),
      );
    },
  };
}

/** Streams content to tempPath, hashing it; on failure the part is removed before this rejects. */
async function writePart(
  dir: string,
  tempPath: string,
  content: Readable,
): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  try {
    await mkdir(dir, { recursive: true });
    // pipeline settles only once the file is closed, so nothing writes to it after the unlink below.
    await pipeline(content, measure, createWriteStream(tempPath, { flags: 'wx' }));
  } catch (error) {
    // A failure to remove it is left to discardParts, which tries again and logs.
    await discardUpload({ tempPath }).catch(() => undefined);
    throw error;
  }
  return { size, sha256: hash.digest('hex') };
}

/**
 * Removes the parts in tmp/ untouched for ABANDONED_AFTER_MS before `now` (every part when `now` is
 * Infinity). Synchronous: it runs at start, before
 * the server listens, and then at most every ABANDONED_AFTER_MS over a folder that holds only the
 * uploads in progress.
 */
function sweepAbandonedParts(dir: string, now: number, log: Logger): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      log.warn({ err, dir }, 'could not list upload parts');
    }
    return;
  }
  for (const name of names.filter((entry) => entry.endsWith('.part'))) {
    const part = path.join(dir, name);
    try {
      if (now - statSync(part).mtimeMs > ABANDONED_AFTER_MS) unlinkSync(part);
    } catch (err) {
      // Gone already: another instance swept it first.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        log.warn({ err, path: part }, 'could not remove an abandoned upload part');
      }
    }
  }
}
