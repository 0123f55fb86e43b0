// Security finding #11: PATCH /v1/messages/{id}/public {public: false} (and the batch) ends the
// channel inclusions whose adders could only make them because the message was public; inclusions
// by those who still see the message (its author, its recipients, members of a channel whose
// inclusion stays) stay.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { addMember, channelWith, registerCreator, type Channel } from './channel-helpers.js';

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

interface Page {
  messages: { id: string }[];
}

async function include(user: TestUser, messageId: string, channels: Channel[]): Promise<void> {
  const res = await api.request('PATCH', `/v1/messages/${messageId}/channels`, {
    token: user.token,
    body: { channel_ids: channels.map((c) => c.id) },
  });
  expect(res.status).toBe(200);
}

async function makePrivate(author: TestUser, messageId: string): Promise<void> {
  const res = await api.request<{ public: boolean }>('PATCH', `/v1/messages/${messageId}/public`, {
    token: author.token,
    body: { public: false },
  });
  expect(res.status).toBe(200);
  expect(res.body.public).toBe(false);
}

async function readStatus(user: TestUser, messageId: string): Promise<number> {
  return (await api.request('GET', `/v1/messages/${messageId}`, { token: user.token })).status;
}

async function channelHolds(user: TestUser, channel: Channel, messageId: string): Promise<boolean> {
  const res = await api.request<Page>('GET', `/v1/channels/${channel.id}/messages?limit=100`, {
    token: user.token,
  });
  expect(res.status).toBe(200);
  return res.body.messages.some((m) => m.id === messageId);
}

describe('PATCH /v1/messages/{message_id}/public false and channel inclusions', () => {
  it('when a stranger included a public message in their channel and the author makes it private, then the stranger and their channel members no longer read it', async () => {
    const author = await registerWriter(api);
    const stranger = await registerCreator(api);
    const member = await registerWriter(api);
    const scrapbook = await channelWith(api, stranger, [member]);
    const message = await postMessage(api, author.token, { content: 'public for now', public: true });
    await include(stranger, message.id, [scrapbook]);
    expect(await readStatus(member, message.id)).toBe(200);

    await makePrivate(author, message.id);

    expect(await readStatus(stranger, message.id)).toBe(404);
    expect(await readStatus(member, message.id)).toBe(404);
    expect(await channelHolds(stranger, scrapbook, message.id)).toBe(false);
    // Public again, the inclusion does not come back by itself.
    const again = await api.request('PATCH', `/v1/messages/${message.id}/public`, {
      token: author.token,
      body: { public: true },
    });
    expect(again.status).toBe(200);
    expect(await channelHolds(stranger, scrapbook, message.id)).toBe(false);
  });

  it('when a recipient and a member of the author’s channel included it, then their inclusions stay after it is made private', async () => {
    const author = await registerCreator(api);
    const recipient = await registerCreator(api);
    const insider = await registerCreator(api);
    const reader = await registerWriter(api);
    const authorChannel = await channelWith(api, author, [insider]);
    const recipientChannel = await channelWith(api, recipient, [reader]);
    const insiderChannel = await channelWith(api, insider, [reader]);
    const message = await postMessage(api, author.token, {
      content: 'public, with a recipient and a channel',
      public: true,
      recipients: [recipient.tag],
      channel_ids: [authorChannel.id],
    });
    await include(recipient, message.id, [recipientChannel]);
    // The insider's PATCH names the author's channel too: it replaces the insider's channels.
    await include(insider, message.id, [authorChannel, insiderChannel]);

    await makePrivate(author, message.id);

    expect(await channelHolds(recipient, recipientChannel, message.id)).toBe(true);
    expect(await channelHolds(insider, insiderChannel, message.id)).toBe(true);
    expect(await channelHolds(author, authorChannel, message.id)).toBe(true);
    expect(await readStatus(reader, message.id)).toBe(200);
  });

  it('when two strangers each included it in a channel the other belongs to, then both inclusions end (they do not keep each other)', async () => {
    const author = await registerWriter(api);
    const first = await registerCreator(api);
    const second = await registerCreator(api);
    const firstChannel = await channelWith(api, first, [second]);
    const secondChannel = await channelWith(api, second, [first]);
    const message = await postMessage(api, author.token, { content: 'public, passed around', public: true });
    await include(first, message.id, [firstChannel]);
    await include(second, message.id, [secondChannel]);

    await makePrivate(author, message.id);

    expect(await readStatus(first, message.id)).toBe(404);
    expect(await readStatus(second, message.id)).toBe(404);
  });

  it('when the batch PATCH /v1/messages/public/batch makes messages private, then strangers’ inclusions end too', async () => {
    const author = await registerWriter(api);
    const stranger = await registerCreator(api);
    const member = await registerWriter(api);
    const scrapbook = await channelWith(api, stranger, []);
    await addMember(api, stranger.token, scrapbook.id, { uid: member.uid });
    const message = await postMessage(api, author.token, { content: 'public, batch', public: true });
    await include(stranger, message.id, [scrapbook]);

    const res = await api.request<{ updated: string[] }>('PATCH', '/v1/messages/public/batch', {
      token: author.token,
      body: { message_ids: [message.id], public: false },
    });
    expect(res.status).toBe(200);
    expect(res.body.updated).toEqual([message.id]);

    expect(await readStatus(member, message.id)).toBe(404);
  });
});
