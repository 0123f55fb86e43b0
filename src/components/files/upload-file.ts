// POST /v1/files/upload: stores an upload in the content-addressed store and records its metadata,
// owned by the uploader, so that it can be attached to a message they post (post-messages.ts).
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { commitBlob, discardUpload, type StoredUpload } from './file-store.js';
import { normalizeContentType, sanitizeFilename } from './file-names.js';
import { createFile, type FileRecord } from './files-repository.js';
import type { FileMetadata } from './files.schemas.js';

export function toFileMetadata(file: FileRecord, publicUrl: string): FileMetadata {
  return { ...file, url: `${publicUrl}/v1/files/${file.file_id}` };
}

export async function uploadFile(
  ctx: AppContext,
  caller: Caller,
  upload: StoredUpload,
): Promise<FileMetadata> {
  try {
    // Uploading is preparing a post: it needs the same scope as posting.
    assertScope(caller, 'messages.write');
    // The blob goes in first: metadata never points at content that is not there. If the write
    // below fails, the blob stays unreferenced, which is harmless (a later identical upload reuses it).
    await commitBlob(ctx.config.filesDir, upload);
  } finally {
    // Committed (renamed away) or refused, the temporary file is gone before the answer is sent.
    await discardUpload(upload);
  }
  const file = await createFile(ctx.db, caller.uid, {
    filename: sanitizeFilename(upload.originalName),
    content_type: normalizeContentType(upload.mimeType),
    size: upload.size,
    sha256: upload.sha256,
  });
  return toFileMetadata(file, ctx.config.publicUrl);
}
