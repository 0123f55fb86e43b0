// Replies and mentions as people expect them (contract "Messages"): `"audience": "parent"` carries a
// reply to the parent's author, CC recipients and channels (never its BCC recipients), and an
// `@tag` in the content pings that user only if they can already see the message.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { channelWith, registerCreator } from '../channels/channel-helpers.js';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

let api: TestServer;

beforeAll(async () => {
  api = await startTestServer();
});

afterAll(async () => {
  await api.close();
});

interface Recipient {
  uid: string;
  public: boolean;
}

async function eventsOf(
  user: TestUser,
): Promise<{ type: string; content: { messages: { id: string }[] } }[]> {
  const res = await api.request<{
    notifications: { event: { type: string; content: { messages: { id: string }[] } } }[];
  }>('GET', '/v1/notifications', { token: user.token });
  expect(res.status).toBe(200);
  return res.body.notifications.map((n) => n.event);
}

describe('"audience": "parent"', () => {
  it('when a CC recipient replies with audience parent, then the author and the other CC recipients get it, the BCC recipient not', async () => {
    const [author, cc1, cc2, bcc] = await Promise.all([
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const root = await postMessage(api, author.token, {
      content: 'plans for friday',
      recipients: [cc1.tag, cc2.tag, { uid: bcc.uid, public: false }],
    });
    const reply = await postMessage(api, cc1.token, {
      content: 'count me in',
      parent_id: root.id,
      audience: 'parent',
    });
    const recipients = (reply.recipients as Recipient[]).map((r) => r.uid).sort();
    expect(recipients).toEqual([author.uid, cc2.uid].sort());
    for (const told of [author, cc2]) {
      expect(
        (await eventsOf(told)).some((e) => e.type === 'sent' && e.content.messages[0]!.id === reply.id),
      ).toBe(true);
    }
    const read = await api.request('GET', `/v1/messages/${reply.id}`, { token: bcc.token });
    expect(read.status).toBe(404);
  });

  it('when a reply omits audience, then it reaches exactly whom it names (the spec rule)', async () => {
    const [author, cc] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const root = await postMessage(api, author.token, { content: 'hello', recipients: [cc.tag] });
    const reply = await postMessage(api, cc.token, { content: 'just me', parent_id: root.id });
    expect(reply.recipients).toEqual([]);
    expect((await api.request('GET', `/v1/messages/${reply.id}`, { token: author.token })).status).toBe(404);
  });

  it('when the parent is in channels, then the reply goes into those the replier belongs to', async () => {
    const admin = await registerCreator(api);
    const [member, outsider] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const channel = await channelWith(api, admin, [member]);
    const other = await channelWith(api, admin, []);
    const root = await postMessage(api, admin.token, {
      content: 'in two channels',
      channel_ids: [channel.id, other.id],
    });
    const reply = await postMessage(api, member.token, {
      content: 'reply',
      parent_id: root.id,
      audience: 'parent',
    });
    expect(reply.channel_ids).toEqual([channel.id]);
    expect((await api.request('GET', `/v1/messages/${reply.id}`, { token: outsider.token })).status).toBe(
      404,
    );
  });

  it('when audience has another value, then the item fails with 422', async () => {
    const [author] = await Promise.all([registerWriter(api)]);
    const res = await api.request<{ ok: boolean; error?: { status: number } }[]>('POST', '/v1/messages', {
      token: author.token,
      body: { content: 'x', audience: 'everyone' },
    });
    expect(res.status).toBe(200);
    expect(res.body[0]).toMatchObject({ ok: false, error: { status: 422 } });
  });
});

describe('mentions', () => {
  it('when content mentions a user who can see the message, then they get a ping; one who cannot is not told', async () => {
    const [author, reader, outsider] = await Promise.all([
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const root = await postMessage(api, author.token, { content: 'a thread', recipients: [reader.tag] });
    const reply = await postMessage(api, author.token, {
      content: `@${reader.tag} and @${outsider.tag.toUpperCase()}, thoughts?`,
      parent_id: root.id,
      public: false,
      recipients: [{ uid: reader.uid, notify: false }],
    });
    const readerEvents = await eventsOf(reader);
    expect(readerEvents.filter((e) => e.type === 'ping').map((e) => e.content.messages[0]!.id)).toEqual([
      reply.id,
    ]);
    expect(await eventsOf(outsider)).toEqual([]);
    expect((await api.request('GET', `/v1/messages/${reply.id}`, { token: outsider.token })).status).toBe(
      404,
    );
  });

  it('when a mentioned user is already a notified recipient, or an @ sits inside an email address, then no extra ping', async () => {
    const [author, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
    await postMessage(api, author.token, {
      content: `hi @${reader.tag}, mail me at someone@${reader.tag}.example`,
      recipients: [reader.tag],
    });
    expect((await eventsOf(reader)).map((e) => e.type)).toEqual(['sent']);
  });
});
