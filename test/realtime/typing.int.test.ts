// Typing and status (issue 51 item 1, decision 031): POST /v1/typing reaches, over sockets opened
// with ?live=true, exactly who could see what is being typed, never the typist; it ends when
// stopped, when not renewed for 8 s, and when the typist's message lands there; a socket joining
// while someone types hears it first. Nothing of it is written to Neo4j, and it crosses instances
// through Redis. Absence is asserted by order: a frame that should not come would arrive before a
// later frame that must come (live frames and events leave in the order they were heard).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Committed } from '../../src/platform/neo4j/database.js';
import { channelWith, registerCreator } from '../channels/channel-helpers.js';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { closeAllSockets } from '../support/ws-client.js';
import { audienceCast, isNotificationOf, listenLive, liveFramesUntil } from './live-helpers.js';

let api: TestServer;
let redis: RedisServer;
let other: TestServer;
let sameRedis: TestServer;
let stingy: TestServer;
const commits: Committed[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
  api = await startTestServer();
  other = await startTestServer({ REDIS_URL: redis.url });
  sameRedis = await startTestServer({ REDIS_URL: redis.url });
  stingy = await startTestServer({ SKEIN_RATE_LIMIT_ACTIONS_PER_MIN: '3' });
  api.ctx.db.onCommit((committed) => {
    commits.push(committed);
    return Promise.resolve();
  });
});
afterAll(async () => {
  closeAllSockets();
  await Promise.all([api?.close(), other?.close(), sameRedis?.close(), stingy?.close()]);
  await redis?.stop();
});

const listen = (user: TestUser, server = api, live = true) => listenLive(server, user, live);

async function typing(user: TestUser, body: Record<string, unknown>, server = api) {
  return server.request<Record<string, unknown>>('POST', '/v1/typing', { token: user.token, body });
}

/** A marker every listener below can see: a post to them all, heard as a `sent` notification. */
async function marker(from: TestUser, to: TestUser[], server = api): Promise<string> {
  const posted = await postMessage(server, from.token, {
    content: 'marker',
    recipients: to.map((user) => user.tag),
  });
  return posted.id;
}

/** The frames before the marker's notification, which is taken too (typing frames only come here). */
const framesUntil = liveFramesUntil;

describe('who sees someone typing', () => {
  it('a reply reaches the author, CC recipients and the channel members, not BCC, strangers or the typist', async () => {
    const {
      author,
      cc,
      bcc,
      member,
      stranger,
      actor: typist,
      markerAuthor,
      channel,
    } = await audienceCast(api);
    const parent = await postMessage(api, author.token, {
      content: 'what do you think?',
      recipients: [cc.tag, { user_tag: bcc.tag, public: false }, typist.tag],
      channel_ids: [channel.id],
    });
    const everyone = [author, cc, bcc, member, stranger, typist];
    const sockets = await Promise.all(everyone.map((user) => listen(user)));
    const quiet = await listen(member, api, false);

    const answer = await typing(typist, { message_id: parent.id, status: 'searching the docs…' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ op: 'start', renew_in_ms: 4000 });
    expect(Date.parse(answer.body.expires_at as string)).toBeGreaterThan(Date.now());
    const seen = await marker(markerAuthor, everyone);
    const received = await Promise.all(sockets.map((socket) => framesUntil(socket, seen)));
    const started = {
      type: 'typing.started',
      target: { message_id: parent.id },
      user: { uid: typist.uid, user_tag: typist.tag },
      status: 'searching the docs…',
    };
    const [forAuthor, forCc, forBcc, forMember, forStranger, forTypist] = received;
    expect(forAuthor).toEqual([started]);
    expect(forCc).toEqual([started]);
    expect(forMember).toEqual([started]);
    expect(forBcc).toEqual([]);
    expect(forStranger).toEqual([]);
    expect(forTypist).toEqual([]);
    // A socket that did not ask for live frames gets none.
    expect(await framesUntil(quiet, seen)).toEqual([]);
  });

  it('a conversation reaches the users named; a channel its members', async () => {
    const [typist, named, member, outsider, markerAuthor] = await Promise.all([
      registerCreator(api),
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const channel = await channelWith(api, typist, [member]);
    const [forNamed, forMember, forOutsider] = await Promise.all(
      [named, member, outsider].map((user) => listen(user)),
    );
    expect((await typing(typist, { recipients: [`@${named.tag}`] })).status).toBe(200);
    const inChannel = await typing(typist, { channel_id: channel.id });
    expect([inChannel.status, inChannel.body]).toEqual([200, expect.anything()]);
    const seen = await marker(markerAuthor, [named, member, outsider]);
    const user = { uid: typist.uid, user_tag: typist.tag };
    expect(await framesUntil(forNamed!, seen)).toEqual([
      {
        type: 'typing.started',
        target: { conversation: [typist.uid, named.uid].sort() },
        user,
        status: null,
      },
    ]);
    expect(await framesUntil(forMember!, seen)).toEqual([
      { type: 'typing.started', target: { channel_id: channel.id }, user, status: null },
    ]);
    expect(await framesUntil(forOutsider!, seen)).toEqual([]);
  });
});

describe('how a signal lives and ends', () => {
  it('renewals send nothing, a status change sends it, and a stop ends it', async () => {
    const [typist, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const socket = await listen(reader);
    const to = { recipients: [reader.tag] };
    await typing(typist, to);
    await typing(typist, to);
    await typing(typist, { ...to, status: 'thinking…' });
    await typing(typist, { ...to, status: 'thinking…' });
    expect((await typing(typist, { ...to, op: 'stop' })).body).toMatchObject({
      op: 'stop',
      expires_at: null,
    });
    const types = [];
    for (let i = 0; i < 3; i++) {
      const frame = await socket.next();
      types.push([frame.type, frame.status]);
    }
    expect(types).toEqual([
      ['typing.started', null],
      ['typing.started', 'thinking…'],
      ['typing.stopped', undefined],
    ]);
    // A stop of nothing active answers the same and sends nothing.
    expect((await typing(typist, { ...to, op: 'stop' })).status).toBe(200);
    const seen = await marker(typist, [reader]);
    expect(await framesUntil(socket, seen)).toEqual([]);
  });

  it('ends by itself 8 s after the last renewal', async () => {
    const [typist, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const socket = await listen(reader);
    await typing(typist, { recipients: [reader.tag] });
    expect((await socket.next()).type).toBe('typing.started');
    const stopped = await socket.next(12_000);
    expect(stopped).toMatchObject({ type: 'typing.stopped', user: { uid: typist.uid } });
  }, 20_000);

  it("ends when the typist's message lands there", async () => {
    const [author, typist] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const parent = await postMessage(api, author.token, { content: 'question', recipients: [typist.tag] });
    const socket = await listen(author);
    await typing(typist, { message_id: parent.id });
    expect((await socket.next()).type).toBe('typing.started');
    const reply = await postMessage(api, typist.token, {
      content: 'answer',
      parent_id: parent.id,
      audience: 'parent',
    });
    const next = [await socket.next(), await socket.next()];
    expect(next.filter((frame) => isNotificationOf(frame, reply.id))).toHaveLength(1);
    expect(next.filter((frame) => frame.type !== 'notification')).toEqual([
      {
        type: 'typing.stopped',
        target: { message_id: parent.id },
        user: { uid: typist.uid, user_tag: typist.tag },
      },
    ]);
  });

  it('a socket that joins while someone types hears it first', async () => {
    const [typist, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
    await typing(typist, { recipients: [reader.tag], status: 'drafting' });
    const socket = await listen(reader);
    expect(await socket.next()).toMatchObject({ type: 'typing.started', status: 'drafting' });
  });

  it('writes nothing to Neo4j', async () => {
    const [typist, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
    await listen(reader);
    const before = commits.length;
    for (let i = 0; i < 5; i++) await typing(typist, { recipients: [reader.tag], status: `step ${i}` });
    await typing(typist, { recipients: [reader.tag], op: 'stop' });
    expect(commits.slice(before)).toEqual([]);
  });

  it('crosses instances through Redis', async () => {
    const [typist, reader] = await Promise.all([registerWriter(other), registerWriter(other)]);
    const socket = await listen(reader, sameRedis);
    expect((await typing(typist, { recipients: [reader.tag] }, other)).status).toBe(200);
    expect(await socket.next()).toMatchObject({ type: 'typing.started', user: { uid: typist.uid } });
  });
});

describe('refusals', () => {
  it('answers as a post to the same target would', async () => {
    const [typist, author, outsider] = await Promise.all([
      registerWriter(api),
      registerCreator(api),
      registerWriter(api),
    ]);
    const hidden = await postMessage(api, author.token, { content: 'private', recipients: [outsider.tag] });
    const invisible = await typing(typist, { message_id: hidden.id });
    const missing = await typing(typist, { message_id: 'ffffffff' });
    expect(invisible.status).toBe(404);
    expect(invisible.body).toEqual(missing.body);
    expect(invisible.body).toMatchObject({ code: 'message_not_found' });
    expect((await typing(typist, { recipients: ['nobody-at-all-here'] })).body).toMatchObject({
      code: 'user_not_found',
    });
    expect((await typing(typist, { channel_id: 'ffffffff' })).body).toMatchObject({
      code: 'channel_not_found',
    });
    const channel = await channelWith(api, author, []);
    expect((await typing(typist, { channel_id: channel.id })).body).toMatchObject({
      code: 'not_channel_member',
    });
    for (const body of [
      {},
      { message_id: hidden.id, channel_id: channel.id },
      { recipients: [author.tag], status: 'x'.repeat(65) },
      { recipients: [author.tag], status: 'two\nlines' },
      { recipients: [author.tag], op: 'pause' },
      { recipients: [typist.tag] },
    ]) {
      const refused = await typing(typist, body);
      expect([refused.status, refused.body.code]).toEqual([422, 'validation_error']);
    }
  });

  it('limits signals per account with 429 and Retry-After', async () => {
    const [typist, reader] = await Promise.all([registerWriter(stingy), registerWriter(stingy)]);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await typing(typist, { recipients: [reader.tag] }, stingy));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    expect(answers[3]!.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('a {"type": "typing"} frame on the socket is the same operation, answered with its id', async () => {
    const [typist, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const readerSocket = await listen(reader);
    const typistSocket = await listen(typist, api, false);
    typistSocket.send({ type: 'typing', id: 'a1', recipients: [reader.tag], status: 'over the socket' });
    expect(await typistSocket.next()).toMatchObject({
      type: 'typing.ok',
      id: 'a1',
      op: 'start',
      renew_in_ms: 4000,
    });
    expect(await readerSocket.next()).toMatchObject({ type: 'typing.started', status: 'over the socket' });
    typistSocket.send({ type: 'typing', id: 'a2', message_id: 'ffffffff' });
    expect(await typistSocket.next()).toMatchObject({ type: 'error', id: 'a2', code: 'message_not_found' });
    typistSocket.send({ type: 'typing', id: 'a3', recipients: [reader.tag], status: 'x'.repeat(65) });
    expect(await typistSocket.next()).toMatchObject({ type: 'error', id: 'a3', code: 'validation_error' });
    typistSocket.send({ type: 'typing', recipients: [reader.tag], op: 'stop' });
    expect(await typistSocket.next()).toMatchObject({ type: 'typing.ok', id: null, op: 'stop' });
    expect(await readerSocket.next()).toMatchObject({ type: 'typing.stopped' });
  });

  it('GraphQL setTyping is the same operation', async () => {
    const [typist, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const socket = await listen(reader);
    const answer = await api.graphql<{ setTyping: { op: string; renew_in_ms: number } }>(
      `mutation { setTyping(recipients: [{user_tag: "${reader.tag}"}], status: "reading") { op renew_in_ms } }`,
      {},
      { token: typist.token },
    );
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data?.setTyping).toEqual({ op: 'start', renew_in_ms: 4000 });
    expect(await socket.next()).toMatchObject({ type: 'typing.started', status: 'reading' });
    const refused = await api.graphql(
      `mutation { setTyping(message_id: "ffffffff") { op } }`,
      {},
      {
        token: typist.token,
      },
    );
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'message_not_found' });
  });
});
