// Who is told what: every event type (sent, added, channels, ping, message.updated,
// message.deleted), read back through GET /v1/notifications and GraphQL. Choosing recipients is a
// security decision, so each type is checked for exactly who receives it and what it shows them,
// BCC cases included; what an event shows is built when it is read, so deleted or hidden messages
// never come back.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { decodeCursor } from '../../src/components/event-log/event-log.js';
import { addMember, channelWith, registerCreator } from '../channels/channel-helpers.js';
import { postMessage, registerUser, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

interface EventMessage {
  id: string;
  content: string;
  parent_id: string | null;
  author: { uid: string; user_tag: string };
}

interface Notification {
  id: string;
  cursor: string;
  created_at: string;
  event: {
    type: string;
    recipient_uid: string;
    content: {
      messages: EventMessage[];
      context: EventMessage[];
      changes?: string[];
      message_ids?: string[];
    };
  };
}

interface NotificationPage {
  notifications: Notification[];
  cursor: string;
  has_more: boolean;
}

const SPEC_TYPES = ['sent', 'ping', 'added', 'channels'];

let api: TestServer;

beforeAll(async () => {
  api = await startTestServer();
});

afterAll(async () => {
  await api.close();
});

async function page(user: TestUser, query = ''): Promise<NotificationPage> {
  const res = await api.request<NotificationPage>('GET', `/v1/notifications${query}`, { token: user.token });
  expect(res.status).toBe(200);
  return res.body;
}

/** The user's events of the spec's four types (the webhook types), oldest first. */
async function inbox(user: TestUser): Promise<Notification[]> {
  return (await everything(user)).filter((n) => SPEC_TYPES.includes(n.event.type));
}

/** Every event the user is handed, oldest first. */
async function everything(user: TestUser): Promise<Notification[]> {
  return (await page(user, '?limit=100')).notifications;
}

/** What an event shows of a message: exactly the spec's four fields. */
function shown(id: string, content: string, author: TestUser, parentId: string | null = null): EventMessage {
  return { id, content, parent_id: parentId, author: { uid: author.uid, user_tag: author.tag } };
}

async function writers(count: number): Promise<TestUser[]> {
  return Promise.all(Array.from({ length: count }, () => registerWriter(api)));
}

describe('sent', () => {
  it('when a message names CC, BCC and notify:false recipients, then CC and BCC are told and nobody else', async () => {
    const [author, cc, bcc, quiet, stranger] = await writers(5);
    const message = await postMessage(api, author!.token, {
      content: 'hello all',
      recipients: [cc!.tag, { uid: bcc!.uid, public: false }, { user_tag: quiet!.tag, notify: false }],
    });

    for (const user of [cc!, bcc!]) {
      const events = await inbox(user);
      expect(events).toHaveLength(1);
      expect(events[0]).toEqual({
        id: expect.any(String),
        cursor: expect.any(String),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        event: {
          type: 'sent',
          recipient_uid: user.uid,
          content: { messages: [shown(message.id, 'hello all', author!)], context: [] },
        },
      });
    }
    expect(await inbox(quiet!)).toEqual([]);
    expect(await inbox(author!)).toEqual([]);
    expect(await inbox(stranger!)).toEqual([]);
  });

  it('when the author names themselves as a recipient, then they are not told about their own message', async () => {
    const [author] = await writers(1);
    await postMessage(api, author!.token, { content: 'note to self', recipients: [author!.tag] });
    expect(await inbox(author!)).toEqual([]);
  });

  it('when a multi-message post reaches one recipient twice, then that recipient gets one batched notification', async () => {
    const [author, reader, other] = await writers(3);
    const res = await api.request<{ ok: boolean; message: { id: string } }[]>('POST', '/v1/messages', {
      token: author!.token,
      body: {
        messages: [
          { content: 'part one', recipients: [reader!.tag] },
          { content: 'part two', recipients: [reader!.tag, other!.tag] },
        ],
      },
    });
    expect(res.status).toBe(200);
    const [one, two] = res.body.map((r) => r.message.id);

    const events = await inbox(reader!);
    expect(events).toHaveLength(1);
    expect(events[0]!.event.content.messages).toEqual([
      shown(one!, 'part one', author!),
      shown(two!, 'part two', author!, one),
    ]);
    // The second recipient cannot see part one: no parent id, no context.
    const [forOther] = await inbox(other!);
    expect(forOther!.event.content).toEqual({ messages: [shown(two!, 'part two', author!)], context: [] });
  });

  it('when a reply reaches someone, then the context holds only the ancestors they can see, root first', async () => {
    const [author, reader] = await writers(2);
    const root = await postMessage(api, author!.token, { content: 'root', recipients: [reader!.tag] });
    const hidden = await postMessage(api, author!.token, { content: 'private middle', parent_id: root.id });
    const visible = await postMessage(api, author!.token, {
      content: 'public middle',
      parent_id: hidden.id,
      public: true,
    });
    const reply = await postMessage(api, author!.token, {
      content: 'the reply',
      parent_id: visible.id,
      recipients: [reader!.tag],
    });

    const events = await inbox(reader!);
    const last = events.at(-1)!;
    expect(last.event.content).toEqual({
      messages: [shown(reply.id, 'the reply', author!, visible.id)],
      context: [shown(root.id, 'root', author!), shown(visible.id, 'public middle', author!)],
    });
    expect(JSON.stringify(events)).not.toContain('private middle');
  });

  it('when a reply goes to someone who was a BCC recipient of the parent, then only they see the parent in context', async () => {
    const [author, cc, bcc, later] = await writers(4);
    const root = await postMessage(api, author!.token, {
      content: 'secret root',
      recipients: [cc!.tag, { user_tag: bcc!.tag, public: false }],
    });
    const reply = await postMessage(api, cc!.token, {
      content: 'reply to all',
      parent_id: root.id,
      recipients: [bcc!.tag, later!.tag],
    });

    const [forBcc] = (await inbox(bcc!)).filter((n) => n.event.content.messages[0]!.id === reply.id);
    expect(forBcc!.event.content.context).toEqual([shown(root.id, 'secret root', author!)]);
    expect(forBcc!.event.content.messages[0]!.parent_id).toBe(root.id);

    const [forLater] = await inbox(later!);
    expect(forLater!.event.content).toEqual({
      messages: [shown(reply.id, 'reply to all', cc!)],
      context: [],
    });
  });

  it('when the same Idempotency-Key is replayed, then no second notification is recorded', async () => {
    const [author, reader] = await writers(2);
    for (let i = 0; i < 2; i++) {
      const res = await api.request('POST', '/v1/messages', {
        token: author!.token,
        headers: { 'idempotency-key': 'notify-once' },
        body: { content: 'once', recipients: [reader!.tag] },
      });
      expect(res.status).toBe(200);
    }
    expect(await inbox(reader!)).toHaveLength(1);
  });

  it('when an item of a post fails, then only the successful items are announced', async () => {
    const [author, reader] = await writers(2);
    const res = await api.request<{ ok: boolean }[]>('POST', '/v1/messages', {
      token: author!.token,
      body: [
        { content: 'good', recipients: [reader!.tag] },
        { content: 'bad', recipients: [reader!.tag, 'no-such-user-anywhere'] },
      ],
    });
    expect(res.body.map((r) => r.ok)).toEqual([true, false]);
    const events = await inbox(reader!);
    expect(events).toHaveLength(1);
    expect(events[0]!.event.content.messages.map((m) => m.content)).toEqual(['good']);
  });
});

describe('channels', () => {
  it('when a message is posted into a channel, then members are told once, recipients get only "sent", the author nothing', async () => {
    const admin = await registerCreator(api);
    const [member, recipientMember, outsider] = await writers(3);
    const channel = await channelWith(api, admin, [member!, recipientMember!]);
    const message = await postMessage(api, admin.token, {
      content: 'to the channel',
      channel_ids: [channel.id],
      recipients: [recipientMember!.tag],
    });

    expect((await inbox(member!)).map((n) => [n.event.type, n.event.content.messages])).toEqual([
      ['channels', [shown(message.id, 'to the channel', admin)]],
    ]);
    expect((await inbox(recipientMember!)).map((n) => n.event.type)).toEqual(['sent']);
    expect(await inbox(admin)).toEqual([]);
    expect(await inbox(outsider!)).toEqual([]);
  });

  it('when a recipient with notify:false is a member, then the channel does not tell them either', async () => {
    const admin = await registerCreator(api);
    const [quiet] = await writers(1);
    const channel = await channelWith(api, admin, [quiet!]);
    await postMessage(api, admin.token, {
      content: 'hush',
      channel_ids: [channel.id],
      recipients: [{ user_tag: quiet!.tag, notify: false }],
    });
    expect(await inbox(quiet!)).toEqual([]);
  });

  it('when a message is added to channels by PATCH, then only members of the newly added channels are told', async () => {
    const admin = await registerCreator(api);
    const [oldMember, newMember, both] = await writers(3);
    const first = await channelWith(api, admin, [oldMember!, both!]);
    const second = await channelWith(api, admin, [newMember!, both!]);
    const message = await postMessage(api, admin.token, { content: 'moving', channel_ids: [first.id] });
    const before = (await page(both!)).cursor;

    const res = await api.request('PATCH', `/v1/messages/${message.id}/channels`, {
      token: admin.token,
      body: { channel_ids: [first.id, second.id] },
    });
    expect(res.status).toBe(200);

    expect((await inbox(oldMember!)).map((n) => n.event.type)).toEqual(['channels']);
    expect((await inbox(newMember!)).map((n) => n.event.type)).toEqual(['channels']);
    // A member of both channels hears about the message again for the second channel, once.
    const since = (await page(both!, `?since=${encodeURIComponent(before)}`)).notifications;
    expect(since.map((n) => n.event.type).sort()).toEqual(['channels', 'message.updated']);

    // The same channels again: nothing new.
    await api.request('PATCH', `/v1/messages/${message.id}/channels`, {
      token: admin.token,
      body: { channel_ids: [first.id, second.id] },
    });
    expect(await inbox(newMember!)).toHaveLength(1);
  });

  it('when a member adds a message by someone else to a channel, then the author is not told about their own message', async () => {
    const admin = await registerCreator(api);
    const [author, mover] = await writers(2);
    const channel = await channelWith(api, admin, [mover!]);
    await addMember(api, admin.token, channel.id, { uid: author!.uid });
    const message = await postMessage(api, author!.token, { content: 'mine', recipients: [mover!.tag] });
    await api.request('PATCH', `/v1/messages/${message.id}/channels`, {
      token: mover!.token,
      body: { channel_ids: [channel.id] },
    });
    expect(await inbox(author!)).toEqual([]);
    expect((await inbox(admin)).map((n) => n.event.type)).toEqual(['channels']);
  });
});

describe('added', () => {
  it('when recipients are added, then each new one is told once, notify:false and existing recipients are not', async () => {
    const [author, adder, fresh, quiet, existing] = await writers(5);
    const message = await postMessage(api, author!.token, {
      content: 'growing',
      recipients: [adder!.tag, existing!.tag],
    });
    const res = await api.request('POST', '/v1/recipients/add', {
      token: adder!.token,
      body: {
        message_id: message.id,
        recipients: [fresh!.tag, { user_tag: quiet!.tag, notify: false }, existing!.tag, adder!.tag],
      },
    });
    expect(res.status).toBe(200);

    expect((await inbox(fresh!)).map((n) => n.event)).toEqual([
      {
        type: 'added',
        recipient_uid: fresh!.uid,
        content: { messages: [shown(message.id, 'growing', author!)], context: [] },
      },
    ]);
    expect(await inbox(quiet!)).toEqual([]);
    expect((await inbox(existing!)).map((n) => n.event.type)).toEqual(['sent']);
    expect((await inbox(adder!)).map((n) => n.event.type)).toEqual(['sent']);
    expect(await inbox(author!)).toEqual([]);
  });

  it('when recipients are added with propagation, then each gets one batched notification', async () => {
    const [author, added] = await writers(2);
    const root = await postMessage(api, author!.token, { content: 'a' });
    const middle = await postMessage(api, author!.token, { content: 'b', parent_id: root.id });
    const leaf = await postMessage(api, author!.token, { content: 'c', parent_id: middle.id });
    const res = await api.request('POST', '/v1/recipients/add', {
      token: author!.token,
      body: { message_id: leaf.id, recipients: [added!.tag], propagation: { strategy: 'ANCESTORS' } },
    });
    expect(res.status).toBe(200);

    const events = await inbox(added!);
    expect(events).toHaveLength(1);
    expect(events[0]!.event.content.messages.map((m) => m.id).sort()).toEqual(
      [root.id, middle.id, leaf.id].sort(),
    );
    // The batch's own messages are not repeated as context.
    expect(events[0]!.event.content.context).toEqual([]);
  });

  it('when the author is added to their own message by someone else, then they are not told', async () => {
    const [author, other] = await writers(2);
    const message = await postMessage(api, author!.token, { content: 'own', recipients: [other!.tag] });
    await api.request('POST', '/v1/recipients/add', {
      token: other!.token,
      body: { message_id: message.id, recipients: [author!.tag] },
    });
    expect(await inbox(author!)).toEqual([]);
  });
});

describe('ping', () => {
  it('when a participant pings users, then only those who can see the message are told, and the answer does not say who', async () => {
    const [author, pinger, seer, bccSeer, blind] = await writers(5);
    const message = await postMessage(api, author!.token, {
      content: 'ping me',
      recipients: [pinger!.tag, seer!.tag, { user_tag: bccSeer!.tag, public: false }],
    });
    const res = await api.request('POST', `/v1/messages/${message.id}/ping`, {
      token: pinger!.token,
      body: {
        recipients: [seer!.tag, `uid:${bccSeer!.uid}`, { user_tag: blind!.tag }, seer!.tag, author!.tag],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message_id: message.id,
      pinged: [seer!.uid, bccSeer!.uid, blind!.uid, author!.uid],
    });

    for (const user of [seer!, bccSeer!]) {
      const pings = (await inbox(user)).filter((n) => n.event.type === 'ping');
      expect(pings.map((n) => n.event.content)).toEqual([
        { messages: [shown(message.id, 'ping me', author!)], context: [] },
      ]);
    }
    expect(await inbox(blind!)).toEqual([]);
    // A ping is explicit: the author hears about a ping on their own message.
    expect((await inbox(author!)).map((n) => n.event.type)).toEqual(['ping']);
    // Nothing about visibility changed.
    expect((await api.request('GET', `/v1/messages/${message.id}`, { token: blind!.token })).status).toBe(
      404,
    );
  });

  it('when the pinger cannot see the message, then 404 as for a missing one and nobody is told', async () => {
    const [author, outsider, reader] = await writers(3);
    const message = await postMessage(api, author!.token, { content: 'closed', recipients: [reader!.tag] });
    const invisible = await api.request('POST', `/v1/messages/${message.id}/ping`, {
      token: outsider!.token,
      body: { recipients: [reader!.tag] },
    });
    const missing = await api.request('POST', '/v1/messages/0000aaaa/ping', {
      token: outsider!.token,
      body: { recipients: [reader!.tag] },
    });
    expect(invisible.status).toBe(404);
    expect(invisible.body).toEqual({ detail: 'Message not found.', code: 'message_not_found' });
    expect(invisible.body).toEqual(missing.body);
    expect((await inbox(reader!)).map((n) => n.event.type)).toEqual(['sent']);
  });

  it('when a ping names an unknown user, has no recipients, or comes from a reader without messages.write, then 404, 400, 403', async () => {
    const [author] = await writers(1);
    const reader = await registerUser(api);
    const message = await postMessage(api, author!.token, { content: 'x', public: true });
    const unknown = await api.request('POST', `/v1/messages/${message.id}/ping`, {
      token: author!.token,
      body: { recipients: ['nobody-has-this-tag'] },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'user_not_found' });
    for (const body of [{}, { recipients: [] }]) {
      const res = await api.request('POST', `/v1/messages/${message.id}/ping`, {
        token: author!.token,
        body,
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: expect.any(String), detail: expect.any(String) });
    }
    const readOnly = await api.request('POST', `/v1/messages/${message.id}/ping`, {
      token: reader.token,
      body: { recipients: [author!.tag] },
    });
    expect(readOnly.status).toBe(403);
    const badId = await api.request('POST', '/v1/messages/NOT-AN-ID/ping', {
      token: author!.token,
      body: { recipients: [author!.tag] },
    });
    expect(badId.status).toBe(422);
  });
});

describe('ping input', () => {
  it('when recipients is present but empty, then the 400 says it must name someone, not that it is missing', async () => {
    const [author] = await writers(1);
    const message = await postMessage(api, author!.token, { content: 'x', public: true });
    const res = await api.request('POST', `/v1/messages/${message.id}/ping`, {
      token: author!.token,
      body: { recipients: [] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: 'The field recipients must name at least one user.',
      code: 'missing_field',
    });
  });
});

describe('message.updated and message.deleted', () => {
  it('when tags change, then the author, CC recipients and channel members are told, the actor and strangers not', async () => {
    const admin = await registerCreator(api);
    const [author, cc, member, stranger] = await writers(4);
    const channel = await channelWith(api, admin, [author!, member!]);
    const message = await postMessage(api, author!.token, {
      content: 'tag me',
      recipients: [cc!.tag],
      channel_ids: [channel.id],
    });
    const res = await api.request('PATCH', `/v1/messages/${message.id}/tags`, {
      token: cc!.token,
      body: { tags: ['urgent'] },
    });
    expect(res.status).toBe(200);
    for (const told of [author!, member!, admin]) {
      const updates = (await everything(told)).filter((n) => n.event.type === 'message.updated');
      expect(updates).toHaveLength(1);
      expect(updates[0]!.event.content.changes).toEqual(['tags']);
      expect(updates[0]!.event.content.messages.map((m) => m.id)).toEqual([message.id]);
    }
    for (const untold of [cc!, stranger!]) {
      expect((await everything(untold)).filter((n) => n.event.type === 'message.updated')).toEqual([]);
    }
  });

  it('when a BCC recipient is added, then only the author hears of the change, not the CC recipients', async () => {
    const [author, cc, adder, hidden] = await writers(4);
    const message = await postMessage(api, author!.token, {
      content: 'quiet',
      recipients: [cc!.tag, adder!.tag],
    });
    const res = await api.request('POST', '/v1/recipients/add', {
      token: adder!.token,
      body: { message_id: message.id, recipients: [{ uid: hidden!.uid, public: false }] },
    });
    expect(res.status).toBe(200);
    const updatesOf = async (user: TestUser) =>
      (await everything(user)).filter((n) => n.event.type === 'message.updated');
    expect(await updatesOf(author!)).toHaveLength(1);
    expect(await updatesOf(cc!)).toEqual([]);
    expect(await updatesOf(hidden!)).toEqual([]);
  });

  it('when a message is deleted, then those who could see it get message.deleted and its earlier events show nothing', async () => {
    const [author, reader, stranger] = await writers(3);
    const message = await postMessage(api, author!.token, {
      content: 'soon gone',
      recipients: [reader!.tag],
    });
    expect(await inbox(reader!)).toHaveLength(1);
    const res = await api.request('DELETE', `/v1/messages/${message.id}`, { token: author!.token });
    expect(res.status).toBe(200);
    const events = await everything(reader!);
    expect(events.map((n) => n.event.type)).toEqual(['message.deleted']);
    expect(events[0]!.event.content).toEqual({ message_ids: [message.id] });
    expect(JSON.stringify(events)).not.toContain('soon gone');
    expect(await everything(stranger!)).toEqual([]);
  });

  it('when a recipient is removed, then their earlier events about the message are no longer handed out', async () => {
    const [author, reader] = await writers(2);
    const message = await postMessage(api, author!.token, {
      content: 'take it back',
      recipients: [reader!.tag],
    });
    const res = await api.request('DELETE', '/v1/recipients/remove', {
      token: author!.token,
      body: { message_id: message.id, recipient_uid: reader!.uid },
    });
    expect(res.status).toBe(200);
    expect(JSON.stringify(await everything(reader!))).not.toContain('take it back');
  });
});

describe('GET /v1/notifications', () => {
  it('when a user has several notifications, then cursors page through them in order, each once', async () => {
    const [author, reader] = await writers(2);
    for (const content of ['one', 'two', 'three']) {
      await postMessage(api, author!.token, { content, recipients: [reader!.tag] });
    }
    const all = await page(reader!);
    expect(all.has_more).toBe(false);
    expect(all.notifications.map((n) => n.event.content.messages[0]!.content)).toEqual([
      'one',
      'two',
      'three',
    ]);
    // The last page's cursor is the log's head, which other users' events (other test files share
    // the log) may have moved past this user's last event: at it or after it, never before.
    expect(decodeCursor(all.cursor)).toBeGreaterThanOrEqual(decodeCursor(all.notifications[2]!.cursor));

    const first = await page(reader!, '?limit=2');
    expect(first.notifications.map((n) => n.id)).toEqual(all.notifications.slice(0, 2).map((n) => n.id));
    expect(first.has_more).toBe(true);
    expect(first.cursor).toBe(first.notifications[1]!.cursor);
    const rest = await page(reader!, `?since=${encodeURIComponent(first.cursor)}`);
    expect(rest.notifications.map((n) => n.id)).toEqual([all.notifications[2]!.id]);
    expect(new Set(all.notifications.map((n) => n.id)).size).toBe(3);

    const nothingNew = await page(reader!, `?since=${encodeURIComponent(all.cursor)}`);
    expect(nothingNew.notifications).toEqual([]);
    await postMessage(api, author!.token, { content: 'four', recipients: [reader!.tag] });
    const fresh = await page(reader!, `?since=${encodeURIComponent(nothingNew.cursor)}`);
    expect(fresh.notifications.map((n) => n.event.content.messages[0]!.content)).toEqual(['four']);
  });

  it('when concurrent posts reach one user, then each is handed out once, none missing', async () => {
    const [reader, ...authors] = await writers(6);
    const posted = await Promise.all(
      authors.map((author) => postMessage(api, author.token, { content: 'race', recipients: [reader!.tag] })),
    );
    const events = await inbox(reader!);
    expect(events.map((n) => n.event.content.messages[0]!.id).sort()).toEqual(posted.map((m) => m.id).sort());
    expect(new Set(events.map((n) => n.cursor)).size).toBe(5);
  });

  it('when posts follow each other without a pause, then each one’s event is readable as soon as it answers', async () => {
    // Rounds of the sequencer then run back to back, each settled by the next one's numbering.
    const people = await writers(8);
    const pairs = [0, 2, 4, 6].map((i) => ({ author: people[i]!, reader: people[i + 1]! }));
    const missing: string[] = [];
    await Promise.all(
      pairs.map(async ({ author, reader }) => {
        for (let i = 0; i < 6; i++) {
          const posted = await postMessage(api, author.token, {
            content: `stream ${i}`,
            recipients: [reader.tag],
          });
          const events = await inbox(reader);
          if (!events.some((n) => n.event.content.messages.some((m) => m.id === posted.id)))
            missing.push(posted.id);
        }
      }),
    );
    expect(missing).toEqual([]);
  });

  it('when since or limit are out of range, or nobody is signed in, then 422 and 401', async () => {
    const [user] = await writers(1);
    for (const query of ['?since=-1', '?limit=0', '?limit=101', '?since=x', '?since=2']) {
      const res = await api.request('GET', `/v1/notifications${query}`, { token: user!.token });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'validation_error' });
    }
    expect((await api.request('GET', '/v1/notifications')).status).toBe(401);
  });
});

describe('GraphQL', () => {
  it('when pingMessage and notifications are used, then they answer as the REST routes do', async () => {
    const [author, reader] = await writers(2);
    const message = await postMessage(api, author!.token, { content: 'gql', recipients: [reader!.tag] });
    const ping = await api.graphql<{ pingMessage: { message_id: string; pinged: string[] } }>(
      'mutation($id: String!, $to: [RecipientInput!]!) { pingMessage(message_id: $id, recipients: $to) { message_id pinged } }',
      { id: message.id, to: [{ user_tag: reader!.tag, public: null }] },
      { token: author!.token },
    );
    expect(ping.body.errors).toBeUndefined();
    expect(ping.body.data?.pingMessage).toEqual({ message_id: message.id, pinged: [reader!.uid] });

    const res = await api.graphql<{
      notifications: { cursor: string; has_more: boolean; notifications: Notification[] };
    }>(
      `{ notifications { cursor has_more notifications { id cursor created_at event {
          type recipient_uid content { messages { id content parent_id author { uid user_tag } }
          context { id } } } } } }`,
      {},
      { token: reader!.token },
    );
    expect(res.body.errors).toBeUndefined();
    const rest = await page(reader!);
    // A page that reaches the end carries the shared log's head as its cursor, and other files'
    // events move the head between the two reads: the cursors may differ, the rest may not.
    const { cursor: graphqlCursor, ...graphqlPage } = res.body.data!.notifications;
    const { cursor: restCursor, ...restPage } = rest;
    expect(graphqlPage).toEqual(restPage);
    for (const cursor of [graphqlCursor, restCursor]) {
      const after = await api.request<{ notifications: unknown[] }>(
        'GET',
        `/v1/notifications?since=${cursor}`,
        {
          token: reader!.token,
        },
      );
      expect(after.status).toBe(200);
      expect(after.body.notifications).toEqual([]);
    }
    expect(rest.notifications.map((n) => n.event.type)).toEqual(['sent', 'ping']);
  });
});
