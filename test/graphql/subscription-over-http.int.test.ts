// A subscription POSTed to /graphql (first-hour review 2026-11-28 #7): a 400 that says where
// subscriptions are served (graphql-ws on the same path), the same for a signed-in and an anonymous
// caller, and nothing logged as a server error.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { registerWriter } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

const SUBSCRIPTION = 'subscription { notifications { cursor } }';

describe('POST /graphql with a subscription', () => {
  it('when a signed-in caller sends one, then 400 bad_request naming graphql-ws, and no error is logged', async () => {
    const user = await registerWriter(api);
    const logged = jest.spyOn(api.ctx.log, 'error');
    try {
      const res = await api.graphql(SUBSCRIPTION, {}, { token: user.token });
      expect(res.status).toBe(400);
      expect(res.body.data ?? null).toBeNull();
      expect(res.body.errors).toHaveLength(1);
      const [error] = res.body.errors!;
      expect(error!.extensions).toMatchObject({ code: 'bad_request', status: 400 });
      expect(error!.message).toMatch(/graphql-ws/);
      expect(logged).not.toHaveBeenCalled();
    } finally {
      logged.mockRestore();
    }
  });

  it('when an anonymous caller sends one, then the same 400', async () => {
    const res = await api.graphql(SUBSCRIPTION);
    expect(res.status).toBe(400);
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ code: 'bad_request', status: 400 });
  });
});
