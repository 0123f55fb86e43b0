// GET /v1/messages/timeline/export and the GraphQL field timelineExport.
// The store is shared with other test files (public messages of everyone appear in any export), so
// assertions look for this file's messages rather than whole bundles.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DateTime } from 'luxon';
import { exportTimeline } from '../../src/components/export/export-timeline.js';
import { EXPORT_MAX_CONTENT_CHARS, EXPORT_MAX_SKIP } from '../../src/components/export/export.schemas.js';
import type { Caller } from '../../src/platform/auth/caller.js';
import {
  createKey,
  postMessage,
  registerUser,
  registerWriter,
  type PostedMessage,
  type TestUser,
} from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { createChannel, expectValidationError, registerChannelOwner } from '../threads/thread-fixtures.js';

interface Bundle {
  exported_at: string;
  cutoff: string;
  days: number | null;
  channel_id: string | null;
  count: number;
  skip: number;
  truncated: boolean;
  next_skip: number | null;
  messages: { id: string; timestamp: string; content: string }[];
}

let api: TestServer;
let alice: TestUser, bob: TestUser, member: TestUser, outsider: TestUser;
let channelId: string;
let alicePrivate: PostedMessage,
  bobPrivate: PostedMessage,
  bobToAlice: PostedMessage,
  bobBccAlice: PostedMessage,
  inChannel: PostedMessage,
  bobPublic: PostedMessage;

beforeAll(async () => {
  api = await startTestServer();
  const owner = await registerChannelOwner(api);
  [alice, bob, member, outsider] = await Promise.all([
    registerWriter(api),
    registerWriter(api),
    registerUser(api),
    registerUser(api),
  ]);
  channelId = await createChannel(api, owner, [alice, member]);
  alicePrivate = await postMessage(api, alice.token, { content: 'alice alone' });
  bobPrivate = await postMessage(api, bob.token, { content: 'bob alone' });
  bobToAlice = await postMessage(api, bob.token, { content: 'bob to alice', recipients: [alice.tag] });
  bobBccAlice = await postMessage(api, bob.token, {
    content: 'bob bcc alice',
    recipients: [{ uid: alice.uid, public: false }],
  });
  inChannel = await postMessage(api, alice.token, { content: 'in the channel', channel_ids: [channelId] });
  bobPublic = await postMessage(api, bob.token, { content: 'bob for everyone', public: true });
});

afterAll(async () => {
  await api.close();
});

const mine = () => [alicePrivate, bobPrivate, bobToAlice, bobBccAlice, inChannel, bobPublic].map((m) => m.id);

async function exportAs(user: TestUser, query = ''): Promise<Bundle> {
  const res = await api.request<Bundle>('GET', `/v1/messages/timeline/export${query}`, { token: user.token });
  expect(res.status).toBe(200);
  return res.body;
}

const ownIds = (bundle: Bundle) => bundle.messages.map((m) => m.id).filter((id) => mine().includes(id));

describe('GET /v1/messages/timeline/export', () => {
  it('when alice exports, then she gets exactly what she may see of these messages, newest first', async () => {
    const bundle = await exportAs(alice, '?days=1');
    expect(ownIds(bundle)).toEqual([
      bobPublic.id,
      inChannel.id,
      bobBccAlice.id,
      bobToAlice.id,
      alicePrivate.id,
    ]);
    expect(ownIds(bundle)).not.toContain(bobPrivate.id);
    expect(bundle.count).toBe(bundle.messages.length);
    expect(bundle.truncated).toBe(false);
    expect(bundle.days).toBe(1);
    expect(bundle.channel_id).toBeNull();
    const stamps = bundle.messages.map((m) => m.timestamp);
    expect([...stamps].sort().reverse()).toEqual(stamps);
    const shown = bundle.messages.find((m) => m.id === bobToAlice.id);
    expect(shown).toMatchObject({ content: 'bob to alice', author: { uid: bob.uid, user_tag: bob.tag } });
  });

  it('when each party exports, then a private message of another user never appears', async () => {
    expect(ownIds(await exportAs(bob, '?days=3650'))).toEqual([
      bobPublic.id,
      bobBccAlice.id,
      bobToAlice.id,
      bobPrivate.id,
    ]);
    expect(ownIds(await exportAs(member, '?days=3650'))).toEqual([bobPublic.id, inChannel.id]);
    expect(ownIds(await exportAs(outsider))).toEqual([bobPublic.id]);
  });

  it('when days is given, then the cutoff is exactly days × 24 h before exported_at and every message is at or after it', async () => {
    const bundle = await exportAs(alice, '?days=2');
    expect(Date.parse(bundle.exported_at) - Date.parse(bundle.cutoff)).toBe(2 * 24 * 3600 * 1000);
    for (const message of bundle.messages) expect(message.timestamp >= bundle.cutoff).toBe(true);
  });

  it('when days is absent, then the cutoff is yesterday 16:00 in New York and the fresh messages are in', async () => {
    const bundle = await exportAs(alice);
    expect(bundle.days).toBeNull();
    const cutoff = DateTime.fromISO(bundle.cutoff, { zone: 'America/New_York' });
    const exportedDay = DateTime.fromISO(bundle.exported_at, { zone: 'America/New_York' }).startOf('day');
    expect(cutoff.toFormat('HH:mm:ss.SSS')).toBe('16:00:00.000');
    expect(cutoff.startOf('day').toISODate()).toBe(exportedDay.minus({ days: 1 }).toISODate());
    expect(ownIds(bundle)).toEqual([
      bobPublic.id,
      inChannel.id,
      bobBccAlice.id,
      bobToAlice.id,
      alicePrivate.id,
    ]);
  });

  it('when the cutoff lies after the messages, then none of them is exported', async () => {
    // Only the use case can be handed a clock: "now" two days ahead with days=1 puts the cutoff
    // tomorrow, after everything this file wrote.
    const caller: Caller = {
      uid: alice.uid,
      userTag: alice.tag,
      isManaged: false,
      permissions: ['messages.read'],
      ceiling: null,
      via: 'session',
      sessionId: null,
      sessionToken: null,
      keyId: null,
      actingManagerUid: null,
    };
    const later = new Date(Date.now() + 2 * 24 * 3600 * 1000);
    const bundle = await exportTimeline(api.ctx, caller, { days: 1, skip: 0 }, later);
    expect(bundle.messages.map((m) => m.id).filter((id) => mine().includes(id))).toEqual([]);
    expect(bundle.cutoff).toBe(new Date(later.getTime() - 24 * 3600 * 1000).toISOString());
  });

  it('when channel_id is given by a member, then only that channel’s messages come', async () => {
    const bundle = await exportAs(member, `?channel_id=${channelId}&days=1`);
    expect(bundle.channel_id).toBe(channelId);
    expect(bundle.messages.map((m) => m.id)).toEqual([inChannel.id]);
    expect(bundle.count).toBe(1);
  });

  it('when channel_id names a channel the caller is not in, then 403 not_channel_member', async () => {
    const res = await api.request('GET', `/v1/messages/timeline/export?channel_id=${channelId}`, {
      token: bob.token,
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'not_channel_member' });
  });

  it('when channel_id names no channel, then 404 channel_not_found', async () => {
    const res = await api.request('GET', '/v1/messages/timeline/export?channel_id=0000abcd', {
      token: alice.token,
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'channel_not_found' });
  });

  it('when days or channel_id is out of range or malformed, then 422 on that field', async () => {
    for (const days of ['0', '3651', '-1', '1.5', 'abc']) {
      const res = await api.request('GET', `/v1/messages/timeline/export?days=${days}`, {
        token: alice.token,
      });
      expectValidationError(res, 'days');
    }
    const res = await api.request('GET', '/v1/messages/timeline/export?channel_id=nothex!!', {
      token: alice.token,
    });
    expectValidationError(res, 'channel_id');
  });

  it('when days is at its bounds, then 200', async () => {
    expect((await exportAs(alice, '?days=1')).days).toBe(1);
    expect((await exportAs(alice, '?days=3650')).days).toBe(3650);
  });

  it('when nobody is signed in, then 401', async () => {
    const res = await api.request('GET', '/v1/messages/timeline/export');
    expect(res.status).toBe(401);
  });

  it('when the credential lacks messages.read, then 403 insufficient_scope', async () => {
    const partner = await registerWriter(api, { apiAccess: true });
    const { key } = await createKey(api, partner.token, { scopes_cap: 'messages.write' });
    const res = await api.request('GET', '/v1/messages/timeline/export', { apiKey: key });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'insufficient_scope' });
  });
});

describe('GET /v1/messages/timeline/export size bounds (security finding #10)', () => {
  it('when the messages hold more content than one bundle may, then parts follow with next_skip and together hold each once', async () => {
    const owner = await registerChannelOwner(api);
    const channel = await createChannel(api, owner, []);
    const long = 'y'.repeat(65_536);
    const total = Math.ceil(EXPORT_MAX_CONTENT_CHARS / long.length) + 8;
    const posted: string[] = [];
    for (let start = 0; start < total; start += 10) {
      const body = Array.from({ length: Math.min(10, total - start) }, () => ({
        content: long,
        channel_ids: [channel],
      }));
      const res = await api.request<{ ok: boolean; message: { id: string } }[]>('POST', '/v1/messages', {
        token: owner.token,
        body,
      });
      expect(res.status).toBe(200);
      posted.push(...res.body.map((item) => item.message.id));
    }

    const first = await exportAs(owner, `?days=1&channel_id=${channel}`);
    const fitting = Math.floor(EXPORT_MAX_CONTENT_CHARS / long.length);
    expect(first).toMatchObject({ skip: 0, count: fitting, truncated: true, next_skip: fitting });
    expect(first.messages.reduce((sum, m) => sum + m.content.length, 0)).toBeLessThanOrEqual(
      EXPORT_MAX_CONTENT_CHARS,
    );
    const second = await exportAs(owner, `?days=1&channel_id=${channel}&skip=${first.next_skip}`);
    expect(second).toMatchObject({
      skip: fitting,
      count: total - fitting,
      truncated: false,
      next_skip: null,
    });

    const ids = [...first.messages, ...second.messages].map((m) => m.id);
    expect(new Set(ids).size).toBe(total);
    expect([...ids].sort()).toEqual([...posted].sort());
  });

  it('when skip is out of range, then 422 on skip', async () => {
    for (const skip of ['-1', String(EXPORT_MAX_SKIP + 1), 'x']) {
      const res = await api.request('GET', `/v1/messages/timeline/export?skip=${skip}`, {
        token: alice.token,
      });
      expectValidationError(res, 'skip');
    }
  });
});

describe('GraphQL timelineExport', () => {
  const QUERY = `query ($days: Int, $channel_id: String) {
    timelineExport(days: $days, channel_id: $channel_id) {
      exported_at cutoff days channel_id count truncated messages { id author { uid } }
    }
  }`;

  it('when alice asks, then the same bundle as REST comes back', async () => {
    const res = await api.graphql<{ timelineExport: Bundle }>(QUERY, { days: 1 }, { token: alice.token });
    expect(res.body.errors).toBeUndefined();
    const bundle = res.body.data!.timelineExport;
    expect(ownIds(bundle)).toEqual([
      bobPublic.id,
      inChannel.id,
      bobBccAlice.id,
      bobToAlice.id,
      alicePrivate.id,
    ]);
    expect(bundle).toMatchObject({
      days: 1,
      channel_id: null,
      truncated: false,
      count: bundle.messages.length,
    });
  });

  it('when a member narrows to the channel, then only its messages; an outsider gets 403', async () => {
    const ok = await api.graphql<{ timelineExport: Bundle }>(
      QUERY,
      { channel_id: channelId },
      { token: member.token },
    );
    expect(ok.body.data!.timelineExport.messages.map((m) => m.id)).toEqual([inChannel.id]);
    const denied = await api.graphql(QUERY, { channel_id: channelId }, { token: bob.token });
    expect(denied.body.errors?.[0]?.extensions).toMatchObject({ code: 'not_channel_member', status: 403 });
  });

  it('when days is out of range or nobody is signed in, then 422 / 401', async () => {
    const bad = await api.graphql(QUERY, { days: 0 }, { token: alice.token });
    expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: 'validation_error', status: 422 });
    const anonymous = await api.graphql(QUERY, { days: 1 });
    expect(anonymous.body.errors?.[0]?.extensions).toMatchObject({ status: 401 });
  });
});
