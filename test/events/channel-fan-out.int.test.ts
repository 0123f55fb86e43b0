// A channel event reaching many open sockets at once is judged once for the channel
// (events/event-payloads.ts, cypher/events/build-channel-view.cypher); what differs per member must
// still differ: context a member may not see, a parent hidden from them, a member who left.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addMember, channelWith, registerCreator } from '../channels/channel-helpers.js';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { closeAllSockets, openSocket, type Frame, type TestSocket } from '../support/ws-client.js';

let api: TestServer;

beforeAll(async () => {
  api = await startTestServer();
});

afterAll(async () => {
  closeAllSockets();
  await api.close();
});

async function connect(user: TestUser): Promise<TestSocket> {
  const socket = await openSocket(api, { token: user.token });
  expect(await socket.next()).toMatchObject({ type: 'ready', uid: user.uid, cursor: expect.any(String) });
  return socket;
}

interface Shown {
  id: string;
  parent_id: string | null;
}

function contentOf(frame: Frame): { messages: Shown[]; context: Shown[] } {
  const event = frame.event as { content: { messages: Shown[]; context: Shown[] } };
  return event.content;
}

describe('a channel post heard by several open sockets', () => {
  it('when only some members can see the parent, then only they get it as context and as parent_id', async () => {
    const admin = await registerCreator(api);
    const [insider, outsider] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const channel = await channelWith(api, admin, [insider, outsider]);
    // A private parent outside the channel, shown to the insider only.
    const parent = await postMessage(api, admin.token, {
      content: 'private parent',
      recipients: [insider.tag],
    });
    const sockets = await Promise.all([connect(insider), connect(outsider)]);
    const reply = await postMessage(api, admin.token, {
      content: 'into the channel',
      parent_id: parent.id,
      channel_ids: [channel.id],
    });
    const [insiderFrame, outsiderFrame] = await Promise.all(sockets.map((s) => s.next()));
    for (const frame of [insiderFrame!, outsiderFrame!]) {
      expect(frame).toMatchObject({ type: 'notification', event: { type: 'channels' } });
    }
    expect(contentOf(insiderFrame!)).toMatchObject({
      messages: [{ id: reply.id, parent_id: parent.id }],
      context: [{ id: parent.id }],
    });
    expect(contentOf(outsiderFrame!)).toMatchObject({
      messages: [{ id: reply.id, parent_id: null }],
      context: [],
    });
    expect((outsiderFrame!.event as { recipient_uid: string }).recipient_uid).toBe(outsider.uid);
  });

  it('when the thread lives in the channel, then every member gets the whole context, root first', async () => {
    const admin = await registerCreator(api);
    const members = await Promise.all([registerWriter(api), registerWriter(api), registerWriter(api)]);
    const channel = await channelWith(api, admin, members);
    const root = await postMessage(api, admin.token, { content: 'root', channel_ids: [channel.id] });
    const middle = await postMessage(api, admin.token, {
      content: 'middle',
      parent_id: root.id,
      channel_ids: [channel.id],
    });
    const sockets = await Promise.all(members.map(connect));
    const leaf = await postMessage(api, admin.token, {
      content: 'leaf',
      parent_id: middle.id,
      channel_ids: [channel.id],
    });
    const frames = await Promise.all(sockets.map((s) => s.next()));
    // Built once for all of them (every node is shared), each frame still names its own recipient.
    expect(frames.map((frame) => (frame.event as { recipient_uid: string }).recipient_uid)).toEqual(
      members.map((member) => member.uid),
    );
    expect(new Set(frames.map((frame) => JSON.stringify(contentOf(frame)))).size).toBe(1);
    for (const frame of frames) {
      expect(contentOf(frame)).toMatchObject({
        messages: [{ id: leaf.id, parent_id: middle.id }],
        context: [
          { id: root.id, parent_id: null },
          { id: middle.id, parent_id: root.id },
        ],
      });
    }
  });

  it('when a post starting a thread goes into two channels, then each member hears it once, whole; a notify:false recipient and the author hear nothing', async () => {
    // Judged from what the post read at its write (event-payloads.ts, viewAsWritten).
    const admin = await registerCreator(api);
    const [both, one, quiet] = await Promise.all([
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const first = await channelWith(api, admin, [both, one, quiet]);
    const second = await channelWith(api, admin, [both]);
    const [bothSocket, oneSocket, quietSocket, adminSocket] = await Promise.all(
      [both, one, quiet, admin].map(connect),
    );
    const posted = await postMessage(api, admin.token, {
      content: 'a new thread',
      channel_ids: [first.id, second.id],
      recipients: [{ uid: quiet.uid, notify: false }],
    });
    for (const [socket, member] of [
      [bothSocket!, both],
      [oneSocket!, one],
    ] as const) {
      const frame = await socket.next();
      expect(frame.event).toEqual({
        type: 'channels',
        recipient_uid: member.uid,
        content: {
          messages: [
            {
              id: posted.id,
              content: 'a new thread',
              parent_id: null,
              author: { uid: admin.uid, user_tag: admin.tag },
            },
          ],
          context: [],
        },
      });
    }
    // The next frame each hears is the next post: nothing twice, nothing for the quiet or the author.
    const next = await postMessage(api, both.token, { content: 'next', channel_ids: [first.id] });
    for (const socket of [oneSocket!, quietSocket!, adminSocket!]) {
      expect(contentOf(await socket.next()).messages.map((m) => m.id)).toEqual([next.id]);
    }
    const last = await postMessage(api, admin.token, { content: 'last', channel_ids: [first.id] });
    expect(contentOf(await bothSocket!.next()).messages.map((m) => m.id)).toEqual([last.id]);
  });

  it('when a member joins while connected, then their open socket hears the channel from then on', async () => {
    const admin = await registerCreator(api);
    const [early, late] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const channel = await channelWith(api, admin, [early]);
    const lateSocket = await connect(late);
    const earlySocket = await connect(early);
    await addMember(api, admin.token, channel.id, { uid: late.uid });
    const posted = await postMessage(api, admin.token, { content: 'welcome', channel_ids: [channel.id] });
    for (const socket of [earlySocket, lateSocket]) {
      const frame = await socket.next();
      expect(contentOf(frame).messages.map((m) => m.id)).toEqual([posted.id]);
    }
  });

  it('when channel posts and direct messages to one member interleave, then every socket hears each once, in the order GET /v1/notifications gives', async () => {
    const admin = await registerCreator(api);
    const writer = await registerWriter(api);
    const members = await Promise.all([registerWriter(api), registerWriter(api), registerWriter(api)]);
    const channel = await channelWith(api, admin, members);
    const sockets = await Promise.all(members.map((member) => openSocket(api, { token: member.token })));
    const starts = await Promise.all(sockets.map(async (socket) => (await socket.next()).cursor as string));
    // Channel events reach the three sockets judged together; the direct ones reach the first
    // member alone, between them, while the channel's are being judged.
    await Promise.all([
      ...Array.from({ length: 12 }, (_, i) =>
        postMessage(api, admin.token, { content: `round ${i}`, channel_ids: [channel.id] }),
      ),
      ...Array.from({ length: 6 }, (_, i) =>
        postMessage(api, writer.token, { content: `aside ${i}`, recipients: [members[0].tag] }),
      ),
    ]);
    for (const [i, member] of members.entries()) {
      const expected = (await readPage(member, starts[i]!)).notifications;
      expect(expected).toHaveLength(i === 0 ? 18 : 12);
      const heard: { cursor: unknown; ids: string[] }[] = [];
      while (heard.length < expected.length) {
        const frame = await sockets[i]!.next();
        heard.push({ cursor: frame.cursor, ids: contentOf(frame).messages.map((m) => m.id) });
      }
      expect(heard).toEqual(
        expected.map((n) => ({ cursor: n.cursor, ids: n.event.content.messages.map((m) => m.id) })),
      );
    }
  });
});

interface NotificationPage {
  notifications: { cursor: string; event: { content: { messages: Shown[] } } }[];
  cursor: string;
}

async function readPage(user: TestUser, since: string): Promise<NotificationPage> {
  const res = await api.request<NotificationPage>(
    'GET',
    `/v1/notifications?since=${encodeURIComponent(since)}&limit=100`,
    { token: user.token },
  );
  expect(res.status).toBe(200);
  return res.body;
}
