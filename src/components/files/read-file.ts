// GET /v1/files/{file_id} and Query.file: a file is readable by its uploader and by anyone who can
// see a message attaching it. Everyone else, like an unknown id, gets the same 404.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import { blobPath, blobSize } from './file-store.js';
import { findVisibleFile } from './files-repository.js';
import type { FileMetadata } from './files.schemas.js';
import { toFileMetadata } from './upload-file.js';

export interface FileDownload {
  metadata: FileMetadata;
  /** Absolute path of the blob, derived only from the stored digest. */
  path: string;
}

function fileNotFound(): AppError {
  return new AppError('file_not_found', 'File not found.');
}

export async function readFileMetadata(
  ctx: AppContext,
  caller: Caller,
  fileId: string,
): Promise<FileMetadata> {
  assertScope(caller, 'messages.read');
  const file = await findVisibleFile(ctx.db, caller.uid, fileId);
  if (!file) throw fileNotFound();
  return toFileMetadata(file, ctx.config.publicUrl);
}

export async function openFile(ctx: AppContext, caller: Caller, fileId: string): Promise<FileDownload> {
  const metadata = await readFileMetadata(ctx, caller, fileId);
  // blobPath refuses a digest that is not 64 hex characters, so no stored value can reach outside
  // the store. A blob missing on disk is data loss, not the caller's fault: a 500, logged.
  const path = blobPath(ctx.config.filesDir, metadata.sha256);
  if ((await blobSize(ctx.config.filesDir, metadata.sha256)) === null) {
    throw new Error(`blob ${metadata.sha256} of file ${fileId} is missing from the store`);
  }
  return { metadata, path };
}
