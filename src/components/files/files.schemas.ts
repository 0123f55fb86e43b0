// Shapes of the file endpoints (validation and OpenAPI). The metadata shape is the FileMetadata of
// message attachments (messages.schemas.ts), so an upload answer can be passed as-is in `files`.
import { z } from '../../platform/openapi.js';
import { Attachment, MessageId } from '../messages/messages.schemas.js';
import type { StoredUpload } from './file-store.js';
import type { FileDownload } from './read-file.js';

export const FileMetadata = Attachment;
export type FileMetadata = z.infer<typeof FileMetadata>;

export const FileIdParam = z.object({ file_id: MessageId });

function isStoredUpload(value: unknown): value is StoredUpload {
  return typeof value === 'object' && value !== null && 'tempPath' in value && 'sha256' in value;
}

/** The multipart body as read by files.rest.ts: the `file` part, streamed to a temporary file. */
export const UploadBody = z.object({
  file: z
    .custom<StoredUpload>(isStoredUpload, 'a file part named `file` is required')
    .openapi({ type: 'string', format: 'binary', description: 'The file content (with its filename).' }),
});

/**
 * The download: documented as raw bytes; in code, what the use case hands the REST layer to stream
 * (read-file.ts), which never becomes JSON.
 */
export const FileContent = z
  .custom<FileDownload>()
  .openapi({ type: 'string', format: 'binary', description: 'The file content.' });
