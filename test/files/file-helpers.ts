// Multipart uploads and raw downloads for the file tests (the shared test client speaks JSON).
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { TestServer } from '../support/test-server.js';

export interface UploadAnswer {
  file_id: string;
  filename: string;
  content_type: string;
  size: number;
  sha256: string;
  url: string;
}

export async function upload(
  api: TestServer,
  token: string | undefined,
  content: string | Uint8Array,
  options: { filename?: string; type?: string; field?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new FormData();
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  form.append(
    options.field ?? 'file',
    new Blob([bytes], { type: options.type ?? 'text/plain' }),
    options.filename ?? 'note.txt',
  );
  const res = await fetch(`${api.url}/v1/files/upload`, {
    method: 'POST',
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body: form,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export async function uploadOk(
  api: TestServer,
  token: string,
  content: string | Uint8Array,
  options: { filename?: string; type?: string } = {},
): Promise<UploadAnswer> {
  const res = await upload(api, token, content, options);
  if (res.status !== 200) throw new Error(`upload failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as unknown as UploadAnswer;
}

export async function download(
  api: TestServer,
  token: string,
  fileId: string,
): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(`${api.url}/v1/files/${fileId}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Every regular file under dir (relative paths), [] when dir does not exist. */
export function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
