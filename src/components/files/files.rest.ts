// /v1/files routes:
//   POST /v1/files/upload                     multipart upload (field `file`) → FileMetadata
//   GET  /v1/files/:file_id                   the content, to its uploader and to viewers of a message attaching it
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import multer from 'multer';
import { requireCaller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError } from '../../platform/errors.js';
import type { RouteTable } from '../../platform/http/route-table.js';
import { openUploadStore, type StoredUpload } from './file-store.js';
import { FileContent, FileIdParam, FileMetadata, UploadBody } from './files.schemas.js';
import { openFile, type FileDownload } from './read-file.js';
import { uploadFile } from './upload-file.js';

export function mountFileRoutes(routes: RouteTable, ctx: AppContext): void {
  const maxBytes = ctx.config.maxUploadBytes;
  const store = openUploadStore(ctx.config.filesDir, ctx.log, { shared: ctx.config.redisUrl !== undefined });
  const upload = multer({
    storage: store.storage,
    // Browsers send non-ASCII file names as raw UTF-8 (busboy would read them as latin1).
    defParamCharset: 'utf8',
    // One file part and a few small text parts at most: anything else is not this endpoint's form.
    limits: { fileSize: maxBytes, files: 1, fields: 10, fieldSize: 4096, parts: 12 },
  }).single('file');

  /** Streams the multipart body to a temporary file; the `file` part (if any) becomes body.file. */
  async function readUpload(req: Request, res: Response, caller: Parameters<typeof requireCaller>[0]) {
    // Checked before reading: nobody without the right to upload makes the service store 25 MiB.
    assertScope(requireCaller(caller), 'messages.write');
    if (!req.is('multipart/form-data')) {
      throw new AppError('bad_request', 'The request must be multipart/form-data with a `file` part.');
    }
    // multer reports through a callback: its error (or nothing) is the promise's value.
    const failure = await new Promise<unknown>((resolve) => upload(req, res, resolve));
    if (failure) {
      // Refused or cut off (malformed, too large, client gone): no part outlives the answer.
      await store.discardParts(req);
      throw toUploadError(failure);
    }
    const file = req.file;
    if (!file) throw new AppError('missing_field', 'The form has no `file` part.');
    // From here the use case commits or removes it (upload-file.ts), before the answer either way.
    const stored: StoredUpload = {
      tempPath: file.path,
      originalName: file.originalname,
      // busboy's value: text/plain when the part declares no type, or one it cannot parse (RFC 7578).
      mimeType: file.mimetype,
      size: file.size,
      sha256: file.filename,
    };
    return { file: stored };
  }

  routes.add({
    method: 'post',
    path: '/v1/files/upload',
    tag: 'files',
    summary: 'Upload a file',
    description:
      'Multipart/form-data with one part named `file`. The content is stored once per SHA-256 ' +
      '(identical uploads share one stored copy but each gets its own `file_id`, name and owner). ' +
      'Answers 200 with the file metadata; pass it (only `file_id` is read) in `files` when posting a ' +
      'message, which only the uploader can do. `filename` is the base name the client sent, without ' +
      'path parts or control characters, at most 255 characters (`file` when nothing is left); ' +
      '`content_type` is the type/subtype the part declared, lower-cased and without parameters; a part ' +
      'that declares no Content-Type (or one that cannot be parsed) is `text/plain`, the multipart default ' +
      '(RFC 7578), and a declared type that is not a valid type/subtype name is `application/octet-stream`. ' +
      `Files larger than SKEIN_MAX_UPLOAD_BYTES (default 25 MiB) are 413 ` +
      '`payload_too_large`. A refused or interrupted upload keeps nothing: its temporary copy is ' +
      'removed before the answer is sent. Needs `messages.write` (uploading prepares a post). ' +
      'Uploads are REST-only: GraphQL has the metadata query `file` but no upload.',
    auth: 'required',
    accountLimit: (limits) => limits.uploadsByAccount,
    body: UploadBody,
    bodyType: 'multipart/form-data',
    readBody: readUpload,
    missingIsBadRequest: true,
    response: FileMetadata,
    errors: {
      400: 'Not multipart/form-data, no `file` part, more than one file, or a malformed form.',
      403: 'messages.write missing.',
      413: 'The file is larger than SKEIN_MAX_UPLOAD_BYTES.',
    },
    handler: ({ caller, body }) => uploadFile(ctx, caller, body.file),
  });

  routes.add({
    method: 'get',
    path: '/v1/files/:file_id',
    tag: 'files',
    summary: 'Download a file',
    description:
      'Streams the content to its uploader and to anyone who can see a message attaching it; for ' +
      'everyone else, as for an unknown id, 404 `file_not_found` with the same body. Headers: the ' +
      'stored Content-Type, Content-Length, `Content-Disposition: attachment` with the stored name ' +
      '(RFC 5987 `filename*` for non-ASCII), `X-Content-Type-Options: nosniff`, a sandboxing ' +
      '`Content-Security-Policy` (uploaded HTML never runs as this origin), `ETag` = the SHA-256 ' +
      '(quoted) and `Cache-Control: private`. Needs `messages.read`.',
    auth: 'required',
    params: FileIdParam,
    response: FileContent,
    // The stored type of the upload, whatever it is.
    responseType: '*/*',
    errors: { 403: 'messages.read missing.', 404: 'No such file, or not one the caller may read.' },
    handler: ({ caller, params }) => openFile(ctx, caller, params.file_id),
    send: sendFile,
  });
}

async function sendFile(res: Response, { metadata, path }: FileDownload): Promise<void> {
  res.attachment(metadata.filename);
  // Set directly: Express's res.type/res.set would rewrite the stored type (adding a charset).
  res.setHeader('Content-Type', metadata.content_type);
  res.setHeader('Content-Length', String(metadata.size));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  res.setHeader('ETag', `"${metadata.sha256}"`);
  res.setHeader('Cache-Control', 'private');
  await pipeline(createReadStream(path), res);
}

function toUploadError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof multer.MulterError) {
    if (error.code === 'LIMIT_FILE_SIZE') {
      return new AppError('payload_too_large', 'The file is larger than this service accepts.');
    }
    return new AppError('bad_request', `The upload form was refused: ${error.message}.`);
  }
  // busboy's parse failures (malformed multipart, a truncated body) are the client's.
  return new AppError('bad_request', 'The multipart body could not be read.');
}
