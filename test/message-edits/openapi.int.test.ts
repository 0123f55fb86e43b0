// The message edit routes in the OpenAPI document, each with its documented behaviour.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

interface Operation {
  description?: string;
  responses: Record<string, unknown>;
}

const ROUTES: [string, string, string[]][] = [
  ['delete', '/v1/messages/{message_id}', ['200', '401', '403', '404', '422']],
  ['delete', '/v1/messages/batch', ['200', '401', '403', '422']],
  ['patch', '/v1/messages/{message_id}/public', ['200', '401', '403', '404', '422']],
  ['patch', '/v1/messages/public/batch', ['200', '401', '403', '422']],
  ['patch', '/v1/messages/{message_id}/subject', ['200', '400', '401', '403', '404', '422']],
  ['get', '/v1/messages/tags', ['200', '401']],
  ['patch', '/v1/messages/{message_id}/tags', ['200', '400', '401', '403', '404', '422']],
  ['patch', '/v1/messages/tags/batch', ['200', '400', '401', '403', '422']],
  ['patch', '/v1/messages/{message_id}/reply_order', ['200', '400', '401', '403', '404', '422']],
  ['patch', '/v1/messages/{message_id}/default_outgoing', ['200', '400', '401', '403', '404', '422']],
  ['post', '/v1/messages/{message_id}/read', ['200', '401', '403', '404', '422']],
  ['put', '/v1/messages/{message_id}/bookmark', ['200', '401', '403', '404', '422']],
  ['delete', '/v1/messages/{message_id}/bookmark', ['200', '401', '403', '404', '422']],
  ['get', '/v1/messages/bookmarks', ['200', '401', '422']],
];

describe('GET /v1/openapi.json', () => {
  it('when the document is read, then every message edit route is in it with a description and its statuses', async () => {
    const res = await api.request<{ paths: Record<string, Record<string, Operation>> }>(
      'GET',
      '/v1/openapi.json',
    );
    expect(res.status).toBe(200);
    for (const [method, path, statuses] of ROUTES) {
      const operation = res.body.paths[path]?.[method];
      expect({ path, method, described: (operation?.description ?? '').length > 40 }).toEqual({
        path,
        method,
        described: true,
      });
      expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(statuses));
    }
  });
});
