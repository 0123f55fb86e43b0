// The content-addressed file store in SKEIN_FILES_DIR (default $SKEIN_DATA_DIR/files): a blob lives
// at <root>/<first 2 hex of its SHA-256>/<remaining 62 hex>, so identical content is stored once and a
// path on disk is derived only from a validated digest, never from anything a client named.
// Uploads stream into <root>/tmp/ while being hashed, then are renamed into place (atomic on one
// file system), so a reader never sees a half-written blob. Several instances share the store by
// mounting one folder (NFS, EFS, a shared volume) at SKEIN_FILES_DIR: blobs are never changed once
// written, and the rename makes a blob appear whole to every instance.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import type { StorageEngine } from 'multer';

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
 * A multer storage engine that writes each file to files/tmp/ while computing its SHA-256 and
 * size. Multer calls _removeFile for files of a failed request (413, a second file...), so a
 * rejected upload leaves nothing behind.
 */
export function hashingStorage(root: string): StorageEngine {
  return {
    _handleFile(_req: Request, file, callback) {
      const dir = tempDir(root);
      const tempPath = path.join(dir, `${randomBytes(12).toString('hex')}.part`);
      const hash = createHash('sha256');
      let size = 0;
      const measure = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          size += chunk.length;
          done(null, chunk);
        },
      });
      mkdir(dir, { recursive: true })
        .then(() => pipeline(file.stream, measure, createWriteStream(tempPath, { flags: 'wx' })))
        .then(
          // multer's File type has no digest field: `filename` (the name within the store) carries it.
          () => callback(null, { path: tempPath, size, filename: hash.digest('hex') }),
          (error: Error) => {
            discardUpload({ tempPath }).then(
              () => callback(error),
              () => callback(error),
            );
          },
        );
    },
    _removeFile(_req: Request, file, callback) {
      discardUpload({ tempPath: file.path }).then(
        () => callback(null),
        (error: Error) => callback(error),
      );
    },
  };
}
