// The only code that runs the files' Cypher (cypher/files/). Takes and returns plain objects; the
// public url is added by the use cases, as hydration does for attachments.
import type { Database } from '../../platform/neo4j/database.js';
import { withFreshId } from '../../platform/neo4j/unique-ids.js';

export interface FileRecord {
  file_id: string;
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
}

export interface NewFile {
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
}

/** Records an upload owned by its uploader; a file_id clash is retried with a new id. */
export async function createFile(db: Database, uploaderUid: string, file: NewFile): Promise<FileRecord> {
  return withFreshId('file_id', async (fileId) => {
    const [row] = await db.write('files/create-file', {
      ...file,
      file_id: fileId,
      uploader_uid: uploaderUid,
      now: new Date().toISOString(),
    });
    if (!row) throw new Error(`uploader ${uploaderUid} vanished while uploading`);
    return row.file as FileRecord;
  });
}

/** The file when the viewer uploaded it or can see a message attaching it; otherwise null. */
export async function findVisibleFile(
  db: Database,
  viewerUid: string,
  fileId: string,
): Promise<FileRecord | null> {
  const [row] = await db.read('files/find-visible-file', { file_id: fileId, viewer_uid: viewerUid });
  return row ? (row.file as FileRecord) : null;
}
