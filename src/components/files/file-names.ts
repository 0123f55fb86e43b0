// What is kept of the client's file name and media type. Both are untrusted: a name is reduced to
// a plain base name (it later lands in Content-Disposition and in clients' save dialogs), and a
// media type that is not a well-formed type/subtype falls back to application/octet-stream.

export const FALLBACK_FILENAME = 'file';
export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
export const MAX_FILENAME_CHARS = 255;

// C0/C1 controls and the bidirectional overrides that can disguise an extension ("txt.exe").
const UNSAFE_CHARS = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
// RFC 6838 restricted-name: 1–127 of these characters, starting with a letter or digit.
const MIME_NAME = '[a-z0-9][a-z0-9!#$&^_.+-]{0,126}';
const MIME_TYPE = new RegExp(`^${MIME_NAME}/${MIME_NAME}$`);

/**
 * The base name (after the last / or \), without control or bidi characters, trimmed, at most
 * 255 characters (code points, never splitting one); "file" when nothing usable is left.
 */
export function sanitizeFilename(raw: string | undefined): string {
  const base = (raw ?? '').normalize('NFC').split(/[/\\]/).pop() ?? '';
  const cleaned = base.replace(UNSAFE_CHARS, '').trim();
  if (cleaned === '' || cleaned === '.' || cleaned === '..') return FALLBACK_FILENAME;
  const chars = Array.from(cleaned);
  return chars.length > MAX_FILENAME_CHARS ? chars.slice(0, MAX_FILENAME_CHARS).join('') : cleaned;
}

/** The lower-cased type/subtype when well formed (parameters dropped), else application/octet-stream. */
export function normalizeContentType(raw: string | undefined): string {
  const essence = (raw ?? '').split(';')[0]!.trim().toLowerCase();
  return MIME_TYPE.test(essence) ? essence : DEFAULT_CONTENT_TYPE;
}
