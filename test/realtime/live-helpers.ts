// What the live tests (typing, streams) share: a socket with live frames, the cast of a message's
// audience, and absence asserted by order: a frame that should not come would arrive before the
// notification of a later message that must come (live frames and events leave in the order heard).
import { expect } from '@jest/globals';
import { channelWith, registerCreator, type Channel } from '../channels/channel-helpers.js';
import { registerWriter, type TestUser } from '../support/factories.js';
import type { TestServer } from '../support/test-server.js';
import { openSocket, type Frame, type TestSocket } from '../support/ws-client.js';

/** /v1/ws/v1 of the user, past its ready frame; with `live` (the default) it asks for live frames. */
export async function listenLive(server: TestServer, user: TestUser, live = true): Promise<TestSocket> {
  const socket = await openSocket(server, { token: user.token, query: live ? { live: 'true' } : {} });
  expect(await socket.next()).toMatchObject({ type: 'ready', uid: user.uid });
  return socket;
}

/** Whether the frame is the notification of a new message `messageId` (its `sent` or `channels` event). */
export function isNotificationOf(frame: Frame, messageId: string): boolean {
  const event = frame.event as { content?: { messages?: { id: string }[] } } | undefined;
  return frame.type === 'notification' && (event?.content?.messages ?? []).some((m) => m.id === messageId);
}

/** The live frames (notifications passed over) a socket got before the notification of `messageId`. */
export async function liveFramesUntil(socket: TestSocket, messageId: string): Promise<Frame[]> {
  const frames: Frame[] = [];
  for (;;) {
    const frame = await socket.next();
    if (isNotificationOf(frame, messageId)) return frames;
    if (frame.type !== 'notification') frames.push(frame);
  }
}

/**
 * Who a message's audience rules tell apart: a channel's admin (`author`) with `member` and `actor`
 * in it, `cc` and `bcc` to name as recipients, a `stranger`, and `markerAuthor` to post markers.
 */
export async function audienceCast(api: TestServer): Promise<{
  author: TestUser;
  cc: TestUser;
  bcc: TestUser;
  member: TestUser;
  stranger: TestUser;
  actor: TestUser;
  markerAuthor: TestUser;
  channel: Channel;
}> {
  const [author, cc, bcc, member, stranger, actor, markerAuthor] = await Promise.all([
    registerCreator(api),
    registerWriter(api),
    registerWriter(api),
    registerWriter(api),
    registerWriter(api),
    registerWriter(api),
    registerWriter(api),
  ]);
  const channel = await channelWith(api, author, [member, actor]);
  return { author, cc, bcc, member, stranger, actor, markerAuthor, channel };
}
