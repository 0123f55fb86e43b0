// Streamed replies (issue 51 items 2, 3 and 5; decision 031): a writer opens a reply with a post's
// input, appends numbered chunks and finishes; every account that will see the finished message
// receives the chunks in order over /v1/ws/v1?live=true, and nobody else; a reader joining
// mid-stream gets the text so far and then only what follows; a reader may stop the writer; a
// stream whose writer vanishes ends by itself with no message; the finish posts one ordinary
// message equal to the chunks joined. Absence is asserted by order, as in typing.int.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createClient, type Client } from 'graphql-ws';
import { WebSocket } from 'ws';
import type { Committed } from '../../src/platform/neo4j/database.js';
import { addMember, channelWith, registerCreator } from '../channels/channel-helpers.js';
import { postMessage, registerWriter, type TestUser } from '../support/factories.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { closeAllSockets, socketUrl, type Frame, type TestSocket } from '../support/ws-client.js';
import { audienceCast, listenLive, liveFramesUntil } from './live-helpers.js';

let api: TestServer;
let quick: TestServer;
let redis: RedisServer;
let instanceA: TestServer;
let instanceB: TestServer;
const commits: Committed[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
  api = await startTestServer();
  quick = await startTestServer({ SKEIN_STREAM_IDLE_SECONDS: '1' });
  instanceA = await startTestServer({ REDIS_URL: redis.url });
  instanceB = await startTestServer({ REDIS_URL: redis.url });
  api.ctx.db.onCommit((committed) => {
    commits.push(committed);
    return Promise.resolve();
  });
});
const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((made) => Promise.resolve(made.dispose())));
  closeAllSockets();
  await Promise.all([api?.close(), quick?.close(), instanceA?.close(), instanceB?.close()]);
  await redis?.stop();
});

interface Stream {
  stream_id: string;
  state: string;
  seq: number;
  text: string;
  parent_id: string | null;
  stop: { by: { uid: string } | null; at: string } | null;
  ended: string | null;
  message_id: string | null;
}

const listen = (user: TestUser, server = api) => listenLive(server, user);

async function open(writer: TestUser, body: Record<string, unknown>, server = api): Promise<Stream> {
  const res = await server.request<Stream>('POST', '/v1/streams', { token: writer.token, body });
  expect([res.status, res.body]).toEqual([201, expect.objectContaining({ state: 'open' })]);
  return res.body;
}

function append(writer: TestUser, id: string, seq: number, text: string, server = api) {
  return server.request<Record<string, unknown>>('POST', `/v1/streams/${id}/chunks`, {
    token: writer.token,
    body: { seq, text },
  });
}

function finish(writer: TestUser, id: string, lastSeq: number, server = api, incomplete = false) {
  return server.request<{ stream: Stream; message: { id: string; content: string } | null }>(
    'POST',
    `/v1/streams/${id}/finish`,
    { token: writer.token, body: { last_seq: lastSeq, incomplete } },
  );
}

/** The next live frame (notifications passed over). */
async function nextLive(socket: TestSocket): Promise<Frame> {
  for (;;) {
    const frame = await socket.next();
    if (frame.type !== 'notification') return frame;
  }
}

describe('who receives a stream', () => {
  it('the finished message’s viewers get every chunk in order; strangers and the writer get nothing', async () => {
    const {
      author,
      cc,
      bcc,
      member,
      stranger,
      actor: writer,
      markerAuthor,
      channel,
    } = await audienceCast(api);
    const parent = await postMessage(api, author.token, {
      content: 'explain graphs',
      recipients: [writer.tag],
      channel_ids: [channel.id],
    });
    const everyone = [author, cc, bcc, member, stranger, writer];
    const sockets = await Promise.all(everyone.map((user) => listen(user)));
    const stream = await open(writer, {
      parent_id: parent.id,
      audience: 'parent',
      recipients: [cc.tag, { user_tag: bcc.tag, public: false }],
      content: 'Graphs ',
    });
    expect(stream).toMatchObject({ seq: 1, text: 'Graphs ', parent_id: parent.id, ended: null });
    expect((await append(writer, stream.stream_id, 2, 'are ')).body).toEqual({
      stream_id: stream.stream_id,
      seq: 2,
      length: 11,
    });
    expect((await append(writer, stream.stream_id, 3, 'nodes.')).status).toBe(200);
    const done = await finish(writer, stream.stream_id, 3);
    expect(done.status).toBe(200);
    expect(done.body.message).toMatchObject({ content: 'Graphs are nodes.', parent_id: parent.id });
    expect(done.body.stream).toMatchObject({
      state: 'ended',
      ended: 'finished',
      message_id: done.body.message!.id,
    });
    const marker = await postMessage(api, markerAuthor.token, {
      content: 'marker',
      recipients: everyone.map((user) => user.tag),
    });
    const received = await Promise.all(sockets.map((socket) => liveFramesUntil(socket, marker.id)));
    const [forAuthor, forCc, forBcc, forMember, forStranger, forWriter] = received;
    const id = stream.stream_id;
    const chunks = [
      { type: 'stream.appended', stream_id: id, after: 0, seq: 1, text: 'Graphs ' },
      { type: 'stream.appended', stream_id: id, after: 1, seq: 2, text: 'are ' },
      { type: 'stream.appended', stream_id: id, after: 2, seq: 3, text: 'nodes.' },
      { type: 'stream.ended', stream_id: id, ended: 'finished', message_id: done.body.message!.id, seq: 3 },
    ];
    for (const frames of [forAuthor!, forCc!, forBcc!, forMember!]) {
      expect(frames[0]).toMatchObject({
        type: 'stream.opened',
        stream_id: id,
        seq: 0,
        text: '',
        author: { uid: writer.uid },
      });
      expect(frames.slice(1)).toEqual(chunks);
    }
    // The BCC recipient may see the reply, not necessarily its parent.
    expect(forAuthor![0]).toMatchObject({ parent_id: parent.id, channel_ids: [channel.id] });
    expect(forBcc![0]).toMatchObject({ parent_id: null, channel_ids: [] });
    expect(forStranger).toEqual([]);
    expect(forWriter).toEqual([]);
  });

  it('the finished message is an ordinary post: read, notified, searched, edited', async () => {
    const [writer, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const stream = await open(writer, { recipients: [reader.tag], content: 'searchable ' });
    await append(writer, stream.stream_id, 2, 'zebracorn');
    const done = await finish(writer, stream.stream_id, 2);
    const id = done.body.message!.id;
    const read = await api.request<{ content: string; author: { uid: string } }>(
      'GET',
      `/v1/messages/${id}`,
      {
        token: reader.token,
      },
    );
    expect(read.body).toMatchObject({
      content: 'searchable zebracorn',
      author: { uid: writer.uid },
      stream: { id: stream.stream_id, ended: 'finished', stopped_by: null },
    });
    // The same as a plain post of the same input, but for what identifies it.
    const plain = await postMessage(api, writer.token, {
      recipients: [reader.tag],
      content: 'searchable zebracorn',
    });
    const plainRead = await api.request<Record<string, unknown>>('GET', `/v1/messages/${plain.id}`, {
      token: reader.token,
    });
    const comparable = (message: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(message).filter(([key]) => !['id', 'root_id', 'timestamp', 'stream'].includes(key)),
      );
    expect(plainRead.body.stream).toBeNull();
    expect(comparable(read.body as unknown as Record<string, unknown>)).toEqual(comparable(plainRead.body));
    const inbox = await api.request<{ messages?: { id: string }[] }>('GET', '/v1/messages/inbox', {
      token: reader.token,
    });
    expect(JSON.stringify(inbox.body)).toContain(id);
    const found = await api.request('GET', '/v1/messages/search?q=zebracorn', { token: reader.token });
    expect(JSON.stringify(found.body)).toContain(id);
    const edited = await api.request('PATCH', `/v1/messages/${id}/content`, {
      token: writer.token,
      body: { content: 'edited afterwards' },
    });
    expect(edited.status).toBe(200);
    // A retried finish answers the same message; nothing new is posted.
    const again = await finish(writer, stream.stream_id, 2);
    expect([again.status, again.body.message?.id]).toEqual([200, id]);
  });

  it('writes nothing to Neo4j until the finish', async () => {
    const [writer, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
    await listen(reader);
    const before = commits.length;
    const stream = await open(writer, { recipients: [reader.tag], content: 'one ' });
    for (let seq = 2; seq <= 10; seq++) await append(writer, stream.stream_id, seq, `${seq} `);
    expect(commits.slice(before)).toEqual([]);
    await finish(writer, stream.stream_id, 10);
    expect(commits.length).toBeGreaterThan(before);
  });

  it('a reader removed from the channel mid-stream hears nothing more of it', async () => {
    const [admin, member, markerAuthor] = await Promise.all([
      registerCreator(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const channel = await channelWith(api, admin, [member]);
    const socket = await listen(member);
    const stream = await open(admin, { channel_ids: [channel.id], content: 'first ' });
    expect(await nextLive(socket)).toMatchObject({ type: 'stream.opened' });
    expect(await nextLive(socket)).toMatchObject({ type: 'stream.appended', seq: 1 });
    const removed = await api.request('DELETE', `/v1/channels/${channel.id}/members/${member.uid}`, {
      token: admin.token,
    });
    expect(removed.status).toBeLessThan(300);
    await append(admin, stream.stream_id, 2, 'secret');
    const marker = await postMessage(api, markerAuthor.token, {
      content: 'marker',
      recipients: [member.tag],
    });
    expect(await liveFramesUntil(socket, marker.id)).toEqual([]);
  });
});

describe('joining mid-stream', () => {
  it('a socket that connects mid-stream gets the text so far, then only what follows', async () => {
    const [writer, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const stream = await open(writer, { recipients: [reader.tag], content: 'Once ' });
    await append(writer, stream.stream_id, 2, 'upon ');
    const socket = await listen(reader);
    expect(await nextLive(socket)).toMatchObject({
      type: 'stream.opened',
      stream_id: stream.stream_id,
      seq: 2,
      text: 'Once upon ',
    });
    await append(writer, stream.stream_id, 3, 'a time');
    expect(await nextLive(socket)).toEqual({
      type: 'stream.appended',
      stream_id: stream.stream_id,
      after: 2,
      seq: 3,
      text: 'a time',
    });
    const listed = await api.request<{ streams: Stream[] }>('GET', '/v1/streams', { token: reader.token });
    expect(listed.body.streams.find((s) => s.stream_id === stream.stream_id)).toMatchObject({
      seq: 3,
      text: 'Once upon a time',
    });
    const read = await api.request<Stream>('GET', `/v1/streams/${stream.stream_id}`, { token: reader.token });
    expect(read.body).toMatchObject({ state: 'open', text: 'Once upon a time' });
  });

  it('a member who joins the channel mid-stream gets the text so far at the next chunk, then what follows', async () => {
    const [admin, joiner] = await Promise.all([registerCreator(api), registerWriter(api)]);
    const channel = await channelWith(api, admin, []);
    const socket = await listen(joiner);
    const stream = await open(admin, { channel_ids: [channel.id], content: 'Before ' });
    await addMember(api, admin.token, channel.id, { uid: joiner.uid });
    await append(admin, stream.stream_id, 2, 'you came, ');
    expect(await nextLive(socket)).toMatchObject({
      type: 'stream.opened',
      stream_id: stream.stream_id,
      seq: 2,
      text: 'Before you came, ',
    });
    await append(admin, stream.stream_id, 3, 'and after.');
    expect(await nextLive(socket)).toEqual({
      type: 'stream.appended',
      stream_id: stream.stream_id,
      after: 2,
      seq: 3,
      text: 'and after.',
    });
  });

  it('a text too large for one frame comes as a flag, and GET reads it', async () => {
    const [writer, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
    // 60,000 characters that JSON writes as \u0001: 360,000 bytes, past half of SKEIN_EVENT_MAX_BYTES.
    const heavy = '\u0001'.repeat(15_000);
    const stream = await open(writer, { recipients: [reader.tag], content: heavy });
    for (let seq = 2; seq <= 4; seq++)
      expect((await append(writer, stream.stream_id, seq, heavy)).status).toBe(200);
    const socket = await listen(reader);
    expect(await nextLive(socket)).toMatchObject({
      type: 'stream.opened',
      seq: 4,
      text: '',
      text_truncated: true,
    });
    const read = await api.request<Stream>('GET', `/v1/streams/${stream.stream_id}`, { token: reader.token });
    expect([read.body.seq, read.body.text.length]).toEqual([4, 60_000]);
    await append(writer, stream.stream_id, 5, 'end');
    expect(await nextLive(socket)).toMatchObject({ type: 'stream.appended', after: 4, seq: 5, text: 'end' });
  });

  it('works across instances through Redis, in order', async () => {
    const [writer, readerA, readerB] = await Promise.all([
      registerWriter(instanceA),
      registerWriter(instanceA),
      registerWriter(instanceA),
    ]);
    const onA = await listen(readerA, instanceA);
    const stream = await open(writer, { recipients: [readerA.tag, readerB.tag], content: 'a' }, instanceB);
    await append(writer, stream.stream_id, 2, 'b', instanceA);
    const onB = await listen(readerB, instanceB);
    await append(writer, stream.stream_id, 3, 'c', instanceB);
    const done = await finish(writer, stream.stream_id, 3, instanceA);
    expect(done.body.message?.content).toBe('abc');
    const fromA = [];
    for (let i = 0; i < 5; i++) fromA.push(await nextLive(onA));
    expect(fromA.map((f) => [f.type, f.seq])).toEqual([
      ['stream.opened', 0],
      ['stream.appended', 1],
      ['stream.appended', 2],
      ['stream.appended', 3],
      ['stream.ended', 3],
    ]);
    const opened = await nextLive(onB);
    const rest = [await nextLive(onB)];
    if (opened.seq === 2) rest.push(await nextLive(onB));
    const text = `${opened.text as string}${rest
      .filter((f) => f.type === 'stream.appended')
      .map((f) => f.text as string)
      .join('')}`;
    expect(text).toBe('abc');
    expect(rest.at(-1)).toMatchObject({ type: 'stream.ended', ended: 'finished' });
  });
});

describe('the writer’s rules', () => {
  it('chunks are numbered; a retry answers the same; others may not write', async () => {
    const [writer, reader, stranger] = await Promise.all([
      registerWriter(api),
      registerWriter(api),
      registerWriter(api),
    ]);
    const stream = await open(writer, { recipients: [reader.tag] });
    const id = stream.stream_id;
    expect((await append(writer, id, 1, 'one')).status).toBe(200);
    expect((await append(writer, id, 1, 'one')).body).toEqual({ stream_id: id, seq: 1, length: 3 });
    const changed = await append(writer, id, 1, 'uno');
    expect([changed.status, changed.body.code]).toEqual([409, 'stream_seq_conflict']);
    const gap = await append(writer, id, 3, 'three');
    expect([gap.status, gap.body.code]).toEqual([409, 'stream_seq_conflict']);
    expect(gap.body.detail).toContain('next seq is 2');
    const byReader = await append(reader, id, 2, 'x');
    expect([byReader.status, byReader.body.code]).toEqual([403, 'not_author']);
    const byStranger = await append(stranger, id, 2, 'x');
    const missing = await append(stranger, 'ffffffff', 2, 'x');
    expect([byStranger.status, byStranger.body]).toEqual([404, missing.body]);
    expect((await api.request('GET', `/v1/streams/${id}`, { token: stranger.token })).status).toBe(404);
    const empty = await append(writer, id, 2, '');
    expect([empty.status, empty.body.code]).toEqual([422, 'validation_error']);
    const late = await finish(writer, id, 0);
    expect([late.status, (late.body as unknown as { code: string }).code]).toEqual([
      409,
      'stream_seq_conflict',
    ]);
    const byOther = await finish(reader, id, 1);
    expect(byOther.status).toBe(403);
  });

  it('an open retried with its Idempotency-Key answers the same stream, on either instance', async () => {
    const [writer, other, reader] = await Promise.all([
      registerWriter(instanceA),
      registerWriter(instanceA),
      registerWriter(instanceA),
    ]);
    const openKeyed = (user: TestUser, key: string, server: TestServer) =>
      server.request<Stream>('POST', '/v1/streams', {
        token: user.token,
        body: { recipients: [reader.tag], content: 'Hello ' },
        headers: { 'Idempotency-Key': key },
      });
    const first = await openKeyed(writer, 'retry-1', instanceA);
    expect(first.status).toBe(201);
    await append(writer, first.body.stream_id, 2, 'again', instanceA);
    const retried = await openKeyed(writer, 'retry-1', instanceB);
    expect(retried.body).toMatchObject({ stream_id: first.body.stream_id, seq: 2, text: 'Hello again' });
    const listed = await instanceA.request<{ streams: Stream[] }>('GET', '/v1/streams', {
      token: writer.token,
    });
    expect(listed.body.streams.filter((s) => s.text.startsWith('Hello'))).toHaveLength(1);
    // Another key, or another writer's same key, is another stream.
    const otherKey = await openKeyed(writer, 'retry-2', instanceA);
    const otherWriter = await openKeyed(other, 'retry-1', instanceA);
    expect(new Set([first.body.stream_id, otherKey.body.stream_id, otherWriter.body.stream_id]).size).toBe(3);
    // In one instance's memory (no Redis) the same.
    const alone = await open(writer, { recipients: [reader.tag] });
    const keyedAlone = await api.request<Stream>('POST', '/v1/streams', {
      token: writer.token,
      body: { recipients: [reader.tag], content: 'x' },
      headers: { 'Idempotency-Key': 'alone-1' },
    });
    const againAlone = await api.request<Stream>('POST', '/v1/streams', {
      token: writer.token,
      body: { recipients: [reader.tag], content: 'x' },
      headers: { 'Idempotency-Key': 'alone-1' },
    });
    expect(againAlone.body.stream_id).toBe(keyedAlone.body.stream_id);
    expect(alone.stream_id).not.toBe(keyedAlone.body.stream_id);
  });

  it('opens with a post’s errors and writes nothing', async () => {
    const [writer, author, other] = await Promise.all([
      registerWriter(api),
      registerCreator(api),
      registerWriter(api),
    ]);
    const hidden = await postMessage(api, author.token, { content: 'private', recipients: [other.tag] });
    const invisible = await api.request('POST', '/v1/streams', {
      token: writer.token,
      body: { parent_id: hidden.id },
    });
    expect([invisible.status, (invisible.body as { code: string }).code]).toEqual([404, 'message_not_found']);
    const channel = await channelWith(api, author, []);
    const outside = await api.request('POST', '/v1/streams', {
      token: writer.token,
      body: { channel_ids: [channel.id] },
    });
    expect([outside.status, (outside.body as { code: string }).code]).toEqual([403, 'not_channel_member']);
    const unknown = await api.request('POST', '/v1/streams', {
      token: writer.token,
      body: { recipients: ['nobody-at-all-here'] },
    });
    expect((unknown.body as { code: string }).code).toBe('user_not_found');
  });
});

describe('stopping and vanishing', () => {
  it('a reader stops the writer: the writer hears it, its next append is refused, the finish records it', async () => {
    const [writer, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const writerSocket = await listen(writer);
    const readerSocket = await listen(reader);
    const stream = await open(writer, { recipients: [reader.tag], content: 'long answer ' });
    const stopped = await api.request<Stream>('POST', `/v1/streams/${stream.stream_id}/stop`, {
      token: reader.token,
    });
    expect(stopped.body).toMatchObject({ state: 'stopping', stop: { by: { uid: reader.uid } } });
    expect(await nextLive(writerSocket)).toMatchObject({
      type: 'stream.stop_requested',
      stream_id: stream.stream_id,
      by: { uid: reader.uid, user_tag: reader.tag },
    });
    const refused = await append(writer, stream.stream_id, 2, 'more');
    expect([refused.status, refused.body.code]).toEqual([409, 'stream_stopped']);
    const again = await api.request<Stream>('POST', `/v1/streams/${stream.stream_id}/stop`, {
      token: reader.token,
    });
    expect(again.body.stop).toEqual(stopped.body.stop);
    const done = await finish(writer, stream.stream_id, 1);
    expect(done.body.stream).toMatchObject({ ended: 'stopped', stop: { by: { uid: reader.uid } } });
    expect(done.body.message).toMatchObject({
      content: 'long answer ',
      stream: {
        id: stream.stream_id,
        ended: 'stopped',
        stopped_by: { uid: reader.uid, user_tag: reader.tag },
      },
    });
    const frames = [];
    for (let i = 0; i < 4; i++) frames.push(await nextLive(readerSocket));
    expect(frames.map((f) => f.type)).toEqual([
      'stream.opened',
      'stream.appended',
      'stream.stop_requested',
      'stream.ended',
    ]);
    const ended = await api.request<{ code: string; detail: string }>(
      'POST',
      `/v1/streams/${stream.stream_id}/stop`,
      { token: reader.token },
    );
    expect([ended.status, ended.body.code]).toEqual([409, 'stream_ended']);
    expect(ended.body.detail).toContain(done.body.message!.id);
  });

  it('a stream whose writer vanishes ends by itself and leaves no message', async () => {
    const [writer, reader] = await Promise.all([registerWriter(quick), registerWriter(quick)]);
    const socket = await listen(reader, quick);
    const stream = await open(writer, { recipients: [reader.tag], content: 'half a thou' }, quick);
    expect(await nextLive(socket)).toMatchObject({ type: 'stream.opened' });
    expect(await nextLive(socket)).toMatchObject({ type: 'stream.appended' });
    expect(await nextLive(socket)).toEqual({
      type: 'stream.ended',
      stream_id: stream.stream_id,
      ended: 'abandoned',
      message_id: null,
      seq: 1,
    });
    const late = await append(writer, stream.stream_id, 2, 'ght', quick);
    expect([late.status, late.body.code]).toEqual([409, 'stream_ended']);
    const inbox = await quick.request('GET', '/v1/messages/inbox', { token: reader.token });
    expect(JSON.stringify(inbox.body)).not.toContain('half a thou');
  });
});

describe('GraphQL', () => {
  it('opens, appends, finishes and reads streams as REST does', async () => {
    const [writer, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const opened = await api.graphql<{ openStream: { stream_id: string; seq: number } }>(
      `mutation { openStream(message: {content: "Hello", recipients: [{user_tag: "${reader.tag}"}]}) { stream_id seq } }`,
      {},
      { token: writer.token },
    );
    expect(opened.body.errors).toBeUndefined();
    const id = opened.body.data!.openStream.stream_id;
    const appended = await api.graphql<{ appendStream: { seq: number } }>(
      `mutation { appendStream(stream_id: "${id}", seq: 2, text: " world") { seq } }`,
      {},
      { token: writer.token },
    );
    expect(appended.body.data?.appendStream.seq).toBe(2);
    const read = await api.graphql<{ stream: { text: string } }>(
      `{ stream(stream_id: "${id}") { text } }`,
      {},
      { token: reader.token },
    );
    expect(read.body.data?.stream.text).toBe('Hello world');
    const done = await api.graphql<{
      finishStream: { stream: { ended: string }; message: { content: string } };
    }>(
      `mutation { finishStream(stream_id: "${id}", last_seq: 2) { stream { ended } message { content } } }`,
      {},
      { token: writer.token },
    );
    expect(done.body.data?.finishStream).toEqual({
      stream: { ended: 'finished' },
      message: { content: 'Hello world' },
    });
  });

  it('subscription live gets the open streams with their text, then each chunk, and typing', async () => {
    const [writer, reader] = await Promise.all([registerWriter(api), registerWriter(api)]);
    const stream = await open(writer, { recipients: [reader.tag], content: 'So far' });
    const made = createClient({
      url: socketUrl(api, '/graphql'),
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${reader.token}` },
      retryAttempts: 0,
      lazy: true,
    });
    clients.push(made);
    const frames = made.iterate<{ live: Record<string, unknown> }>({
      query: 'subscription { live { type stream_id seq after text user { uid } status author { uid } } }',
    });
    const nextLiveFrame = async () => {
      const result = await frames.next();
      if (result.done) throw new Error('the subscription ended');
      return (result.value as { data?: { live?: Record<string, unknown> } }).data?.live;
    };
    expect(await nextLiveFrame()).toMatchObject({
      type: 'stream.opened',
      stream_id: stream.stream_id,
      seq: 1,
      text: 'So far',
      author: { uid: writer.uid },
    });
    await append(writer, stream.stream_id, 2, ', so good');
    expect(await nextLiveFrame()).toMatchObject({
      type: 'stream.appended',
      after: 1,
      seq: 2,
      text: ', so good',
    });
    await api.request('POST', '/v1/typing', {
      token: writer.token,
      body: { recipients: [reader.tag], status: 'writing more' },
    });
    expect(await nextLiveFrame()).toMatchObject({
      type: 'typing.started',
      user: { uid: writer.uid },
      status: 'writing more',
    });
    await frames.return?.();
  });
});
