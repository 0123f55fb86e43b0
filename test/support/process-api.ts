// What the factories need of a server (its url and request), for a service running as its own
// process (service-process.ts): requests go over real HTTP with fetch.
import type { ApiResponse, RequestOptions, TestServer } from './test-server.js';

export function processApi(url: string): TestServer {
  const request = async <T>(method: string, pathname: string, options: RequestOptions = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url + pathname, {
      method,
      headers,
      body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
    });
    const text = await res.text();
    return {
      status: res.status,
      body: (text ? JSON.parse(text) : null) as T,
      headers: res.headers,
      cookies: {},
    } satisfies ApiResponse<T>;
  };
  return { url, request } as unknown as TestServer;
}
