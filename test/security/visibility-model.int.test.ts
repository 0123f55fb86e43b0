// The visibility model test (issue 7, part 1): fast-check builds random worlds (writers, a managed
// bot, channels with random members) and plays random actions on them through the real HTTP API
// (posts, reply chains, CC/BCC recipients, stitches, recipient adds with propagation, public flags,
// channel inclusions, deletions, pings), keeping an in-memory model of the spec's visibility rule
// (visibility-model.ts) in step. Every action's answer is checked against what the model predicts
// (a refused action must write nothing). After each action every user's new notifications, read
// with the cursor the user held, must be exactly the events of the spec's four types the action
// concerns, and every notification (message.updated and message.deleted too) must show only what
// the user can see now, as they see it now: events are built when handed out, so once more at the
// end, read from the start, none may show a message deleted or hidden since. For every user and an
// anonymous reader every read endpoint and GraphQL field must show exactly what the model allows:
// no invisible message, id, recipient entry or content (each message carries a unique word that
// must never appear where the message may not), and nothing visible missing where the view's
// contract says what it holds.
//
// Runs: SKEIN_PROPERTY_RUNS (default 25). A failure prints fast-check's seed and path; replay it
// with SKEIN_PROPERTY_SEED=<seed> SKEIN_PROPERTY_PATH=<path>. SKEIN_PROPERTY_SHRINK=true shrinks a
// failure to a smaller world (slow: every try builds a world). See docs/decisions/007-proof-tests.md.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { addMember, createChannel, registerWithScopes } from '../channels/channel-helpers.js';
import { WRITER_SCOPES, createManaged } from '../support/factories.js';
import { startTestServer, type ApiResponse, type TestServer } from '../support/test-server.js';
import { VisibilityModel, type ExpectedOutput, type ModelMessage, type Viewer } from './visibility-model.js';
import {
  choose,
  worldPlan,
  type ActionPlan,
  type PostItemPlan,
  type RecipientPlan,
  type WorldPlan,
} from './world-generator.js';

const RUNS = Number(process.env.SKEIN_PROPERTY_RUNS ?? 25);
const SEED = process.env.SKEIN_PROPERTY_SEED ? Number(process.env.SKEIN_PROPERTY_SEED) : undefined;
const PATH = process.env.SKEIN_PROPERTY_PATH;
const SHRINK = process.env.SKEIN_PROPERTY_SHRINK === 'true';
const DEBUG = process.env.SKEIN_PROPERTY_DEBUG === 'true';

interface Recipient {
  uid: string;
  user_tag: string;
  public: boolean;
  added_by: string | null;
}

interface Message {
  id: string;
  content: string;
  public: boolean;
  timestamp: string;
  author: { uid: string; user_tag: string };
  parent_id: string | null;
  root_id: string | null;
  recipients: Recipient[];
  reply_ids: string[];
  stitch_parent_ids: string[];
  stitch_child_ids: string[];
  channel_ids: string[];
  reply_order: string[] | null;
  default_outgoing: string | null;
}

interface Page {
  messages: (Message & { depth?: number; replies?: { count: number; ids: string[] } })[];
  has_more: boolean;
}

interface EventMessage {
  id: string;
  content: string;
  parent_id: string | null;
  author: { uid: string };
}

interface Notification {
  id: string;
  cursor: string;
  event: {
    type: string;
    recipient_uid: string;
    content: { messages: EventMessage[]; context?: EventMessage[]; message_ids?: string[] };
  };
}

interface Actor {
  uid: string;
  tag: string;
  token: string;
}

type ItemResult = { ok: true; message: Message } | { ok: false; error: { status: number; code: string } };

/** A broken expectation that makes the rest of the run meaningless (the model no longer matches). */
class Divergence extends Error {}

let api: TestServer;
let missingBody: unknown;
let missingGraphQL: { message: string; code: unknown };
const stats = { worlds: 0, actions: 0, refused: 0, messages: 0, requests: 0, notifications: 0 };

beforeAll(async () => {
  api = await startTestServer();
  const probe = await registerWithScopes(api, WRITER_SCOPES);
  // The one 404 every invisible message must answer, byte for byte: that of an id nobody has.
  const missing = await api.request('GET', '/v1/messages/0000ffff', { token: probe.token });
  expect(missing.status).toBe(404);
  missingBody = missing.body;
  const gql = await api.graphql(
    'query($id: String!) { message(message_id: $id) { id } }',
    { id: '0000ffff' },
    {
      token: probe.token,
    },
  );
  const error = gql.body.errors?.[0];
  expect(error).toBeDefined();
  missingGraphQL = { message: error!.message, code: error!.extensions?.code };
});

afterAll(async () => {
  await api?.close();
});

function letters(count: number): string {
  return Array.from({ length: count }, () => String.fromCharCode(97 + randomInt(26))).join('');
}

const sameSet = (a: readonly string[], b: readonly string[]) => {
  const left = [...new Set(a)].sort();
  const right = [...new Set(b)].sort();
  return a.length === left.length && left.length === right.length && left.every((x, i) => x === right[i]);
};

const show = (values: readonly string[]) => `[${[...values].sort().join(', ')}]`;

class World {
  readonly model: VisibilityModel;
  readonly token = `qz${letters(10)}`;
  readonly startedAt = new Date(Date.now() - 1000).toISOString();
  readonly log: string[] = [];
  readonly problems: string[] = [];
  /** Each user's notification cursor: what they were handed up to the last action. */
  readonly cursors = new Map<number, string>();

  constructor(readonly actors: Actor[]) {
    this.model = new VisibilityModel(actors.map((a) => a.uid));
  }

  name(viewer: Viewer): string {
    return viewer === null ? 'anonymous' : `user${viewer}`;
  }

  problem(text: string): void {
    if (this.problems.length < 40) this.problems.push(text);
  }

  async call<T = unknown>(
    viewer: Viewer,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<ApiResponse<T>> {
    stats.requests++;
    const res = await api.request<T>(method, path, {
      token: viewer === null ? undefined : this.actors[viewer]!.token,
      ...(body === undefined ? {} : { body }),
    });
    if (res.status >= 500)
      throw new Divergence(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    this.assertNoLeakedContent(viewer, `${method} ${path}`, res.body);
    return res;
  }

  async graphql<T>(viewer: Viewer, query: string, variables: Record<string, unknown> = {}) {
    stats.requests++;
    const res = await api.graphql<T>(query, variables, {
      token: viewer === null ? undefined : this.actors[viewer]!.token,
    });
    if (res.status >= 500)
      throw new Divergence(`GraphQL answered ${res.status}: ${JSON.stringify(res.body)}`);
    this.assertNoLeakedContent(viewer, `GraphQL ${query.slice(0, 40)}`, res.body);
    return res;
  }

  /** The unique word of a message the viewer may not see must appear nowhere in what it is shown. */
  assertNoLeakedContent(
    viewer: Viewer,
    where: string,
    body: unknown,
    sees: (id: string) => boolean = (id) => this.model.canSee(viewer, id),
  ): void {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    if (!text) return;
    for (const m of this.model.messages.values()) {
      if (!sees(m.id) && text.includes(m.nonce))
        this.problem(`${this.name(viewer)} ${where}: shows the content of ${m.id}, which it may not see`);
    }
  }

  outputProblems(viewer: Viewer, where: string, body: Message): void {
    if (!this.model.isWorldMessage(body.id)) return;
    if (!this.model.canSee(viewer, body.id)) {
      this.problem(`${this.name(viewer)} ${where}: lists ${body.id}, which it may not see`);
      return;
    }
    const expected: ExpectedOutput = this.model.expectedOutput(viewer, body.id);
    const differ = (field: string, got: unknown, want: unknown) =>
      this.problem(
        `${this.name(viewer)} ${where}: ${body.id}.${field} is ${String(got)}, expected ${String(want)}`,
      );
    if (body.parent_id !== expected.parent_id) differ('parent_id', body.parent_id, expected.parent_id);
    if (body.root_id !== expected.root_id) differ('root_id', body.root_id, expected.root_id);
    if (body.public !== expected.public) differ('public', body.public, expected.public);
    if (body.content !== expected.content) differ('content', body.content, expected.content);
    if (body.author.uid !== expected.author_uid) differ('author.uid', body.author.uid, expected.author_uid);
    const lists: [keyof ExpectedOutput & keyof Message, string[]][] = [
      ['reply_ids', body.reply_ids],
      ['stitch_parent_ids', body.stitch_parent_ids],
      ['stitch_child_ids', body.stitch_child_ids],
      ['channel_ids', body.channel_ids],
    ];
    for (const [field, got] of lists) {
      const want = expected[field] as string[];
      if (!sameSet(got, want)) differ(field, show(got), show(want));
    }
    if (JSON.stringify(body.reply_order) !== JSON.stringify(expected.reply_order))
      differ('reply_order', JSON.stringify(body.reply_order), JSON.stringify(expected.reply_order));
    if (body.default_outgoing !== expected.default_outgoing)
      differ('default_outgoing', body.default_outgoing, expected.default_outgoing);
    const recipients = body.recipients.map((r) => `${r.uid}|${r.public}|${r.added_by}`);
    if (!sameSet(recipients, expected.recipients))
      differ('recipients', show(recipients), show(expected.recipients));
  }
}

// ---------------------------------------------------------------- building a world

/** A session of a managed user, minted by its manager (no password, so no bcrypt: worlds stay cheap). */
async function managedActor(manager: Actor, body: Record<string, unknown> = {}): Promise<Actor> {
  const created = await createManaged(api, manager.token, body);
  const delegated = await api.request<{ access_token: string }>('POST', '/v1/managed/auth/delegate', {
    token: manager.token,
    body: { managed_uid: created.uid },
  });
  expect(delegated.status).toBe(200);
  return { uid: created.uid, tag: created.user_tag, token: delegated.body.access_token };
}

/**
 * Users 0 and 1 are registered writers (they may create channels); further writers are managed
 * users of user 1 (managing must never widen what a manager sees); the last user is a bot managed
 * by user 0.
 */
async function buildWorld(plan: WorldPlan): Promise<World> {
  const registered = await Promise.all(
    [0, 1].map(() => registerWithScopes(api, [...WRITER_SCOPES, 'channels.create'])),
  );
  const writers: Actor[] = registered.map((w) => ({ uid: w.uid, tag: w.tag, token: w.token }));
  while (writers.length < plan.writers) writers.push(await managedActor(writers[1]!));
  const bot = await managedActor(writers[0]!, { is_bot: true });
  const world = new World([...writers, bot]);
  const botIndex = plan.writers;
  world.model.managerOf.set(botIndex, 0);
  for (let user = 2; user < plan.writers; user++) world.model.managerOf.set(user, 1);
  const users = world.actors.length;
  for (const channelPlan of plan.channels) {
    const creator = channelPlan.creator % 2;
    const channel = await createChannel(api, world.actors[creator]!.token);
    const members = new Set([creator]);
    for (const raw of channelPlan.members) {
      const member = raw % users;
      if (members.has(member)) continue;
      await addMember(api, world.actors[creator]!.token, channel.id, { uid: world.actors[member]!.uid });
      members.add(member);
    }
    world.model.channels.push({ id: channel.id, members });
  }
  world.log.push(
    `world: ${plan.writers} writers (user2+ managed by user1) + bot user${botIndex} (managed by user0); channels ${world.model.channels
      .map((c, i) => `#${i}=${c.id}{${[...c.members].map((m) => `user${m}`).join(',')}}`)
      .join(' ')}`,
  );
  return world;
}

// ---------------------------------------------------------------- actions

/** Expected notifications of one action: `type:uid` → message ids. */
type Expected = Map<string, Set<string>>;

function expect_(expected: Expected, type: string, uid: string, messageId: string): void {
  const key = `${type}:${uid}`;
  const ids = expected.get(key) ?? new Set<string>();
  ids.add(messageId);
  expected.set(key, ids);
}

function recipientInput(world: World, r: RecipientPlan): unknown {
  const target = world.actors[r.user % world.actors.length]!;
  switch (r.form) {
    case 'tag':
      return target.tag;
    case 'at-tag':
      return `@${target.tag}`;
    case 'uid-string':
      return `uid:${target.uid}`;
    case 'object':
      return { uid: target.uid, public: !r.bcc, notify: r.notify };
  }
}

/** The first mention of a user decides CC/BCC and notify; string forms are CC and notified. */
function wantedRecipients(world: World, recipients: RecipientPlan[]) {
  const wanted = new Map<number, { public: boolean; notify: boolean }>();
  for (const r of recipients) {
    const user = r.user % world.actors.length;
    if (wanted.has(user)) continue;
    wanted.set(
      user,
      r.form === 'object' ? { public: !r.bcc, notify: r.notify } : { public: true, notify: true },
    );
  }
  return wanted;
}

function expectStatus(world: World, what: string, res: ApiResponse<unknown>, status: number): void {
  world.log.push(`  → ${res.status}`);
  if (res.status !== status)
    throw new Divergence(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  if (status >= 400) stats.refused++;
}

async function perform(world: World, action: ActionPlan): Promise<Expected> {
  const { model } = world;
  const expected: Expected = new Map();
  const actor = action.actor % world.actors.length;
  const all = [...model.messages.values()];
  const visible = model.visible(actor);
  const editable = visible.filter((m) => model.mayEdit(actor, m));
  const who = `user${actor}`;

  switch (action.kind) {
    case 'post': {
      const parent = action.parent === null ? undefined : choose(action.stray ? all : visible, action.parent);
      const items = action.items.map((item: PostItemPlan) => ({
        plan: item,
        nonce: `n${letters(12)}`,
        channels: [
          ...new Set(
            item.channels.flatMap((raw) => {
              const pool = action.stray ? model.channels.map((_, i) => i) : model.channelsOf(actor);
              const pick = choose(pool, raw);
              return pick === undefined ? [] : [pick];
            }),
          ),
        ],
      }));
      const inputs = items.map((item, index) => ({
        content: `${world.token} ${item.nonce} message`,
        ...(index === 0 && parent ? { parent_id: parent.id } : {}),
        recipients: item.plan.recipients.map((r) => recipientInput(world, r)),
        public: item.plan.public,
        channel_ids: item.channels.map((c) => model.channels[c]!.id),
      }));
      const body = inputs.length === 1 ? inputs[0] : { messages: inputs };
      world.log.push(`${who} POST /v1/messages ${JSON.stringify(body)}`);
      const res = await world.call<ItemResult[]>(actor, 'POST', '/v1/messages', body);
      expectStatus(world, 'post', res, 200);
      let previous: ModelMessage | null = null;
      const answers: Message[] = [];
      /** The post's messages in each channel, with their recipients. */
      const inChannel = new Map<number, { id: string; receivers: Set<number> }[]>();
      items.forEach((item, index) => {
        const result = res.body[index];
        const parentId = previous?.id ?? (index === 0 ? (parent?.id ?? null) : null);
        const parentOk = parentId === null || model.canSee(actor, parentId);
        const channelsOk = item.channels.every((c) => model.channels[c]!.members.has(actor));
        const predicted = !parentOk ? 404 : !channelsOk ? 403 : 200;
        const got = !result ? 0 : result.ok ? 200 : result.error.status;
        world.log.push(`  item ${index}: ${result?.ok ? result.message.id : got}`);
        if (got !== predicted)
          throw new Divergence(`post item ${index}: expected ${predicted}, got ${JSON.stringify(result)}`);
        if (!result?.ok) {
          stats.refused++;
          return;
        }
        const wanted = wantedRecipients(world, item.plan.recipients);
        const created: Omit<ModelMessage, 'alive' | 'replyOrder' | 'defaultOutgoing' | 'channelAdders'> = {
          id: result.message.id,
          author: actor,
          content: inputs[index]!.content,
          nonce: item.nonce,
          parent: parentId,
          root: parentId === null ? result.message.id : model.message(parentId).root,
          public: item.plan.public,
          createdAt: result.message.timestamp,
          channels: new Set(item.channels),
          receivers: new Map([...wanted].map(([user, w]) => [user, { public: w.public, addedBy: actor }])),
        };
        model.addMessage(created);
        stats.messages++;
        answers.push(result.message);
        for (const [user, w] of wanted)
          if (w.notify && user !== actor) expect_(expected, 'sent', model.uid(user), created.id);
        for (const c of item.channels)
          inChannel.set(c, [
            ...(inChannel.get(c) ?? []),
            { id: created.id, receivers: new Set(wanted.keys()) },
          ]);
        previous = model.message(created.id);
      });
      // One `channels` event per channel posted into, naming the post's messages in it, heard by its
      // members except the author and those who are recipients of every one of those messages.
      for (const [c, included] of inChannel)
        for (const member of model.channels[c]!.members)
          if (member !== actor && !included.every((m) => m.receivers.has(member)))
            for (const m of included) expect_(expected, 'channels', model.uid(member), m.id);
      // Each answer as the author sees it once the whole post is written (a chain's replies included).
      for (const answer of answers) world.outputProblems(actor, 'post answer', answer);
      return expected;
    }

    case 'stitch': {
      const pool = action.stray ? all : visible;
      const from = choose(pool, action.from);
      const to = choose(pool, action.to);
      if (!from || !to) return expected;
      const predicted =
        from.id === to.id ? 422 : model.canSee(actor, from.id) && model.canSee(actor, to.id) ? 200 : 404;
      world.log.push(`${who} stitch ${from.id} → ${to.id}`);
      const res = await world.call(actor, 'POST', `/v1/links/messages/${from.id}/${to.id}`);
      expectStatus(world, 'stitch', res, predicted);
      if (predicted === 200) model.addStitch(from.id, to.id, actor);
      return expected;
    }

    case 'add': {
      const pool = action.stray ? all : visible;
      const named = [
        ...new Set(action.messages.flatMap((raw) => (choose(pool, raw) ? [choose(pool, raw)!.id] : []))),
      ];
      if (named.length === 0) return expected;
      const wanted = wantedRecipients(world, action.recipients);
      const body = {
        message_ids: named,
        recipients: action.recipients.map((r) => recipientInput(world, r)),
        ...(action.strategy === 'NONE' ? {} : { propagation: { strategy: action.strategy } }),
      };
      const predicted = named.every((id) => model.canSee(actor, id)) ? 200 : 404;
      world.log.push(`${who} POST /v1/recipients/add ${JSON.stringify(body)}`);
      const res = await world.call<{
        added: { message_id: string; uid: string }[];
        unchanged: { message_id: string; uid: string }[];
      }>(actor, 'POST', '/v1/recipients/add', body);
      expectStatus(world, 'add recipients', res, predicted);
      if (predicted !== 200) return expected;
      const propagated = named.flatMap((id) =>
        action.strategy === 'ANCESTORS'
          ? model.visibleAncestors(actor, id)
          : action.strategy === 'TREE'
            ? model.visibleThread(actor, id)
            : [],
      );
      const affected = [...new Set([...named, ...propagated])];
      const added: string[] = [];
      const unchanged: string[] = [];
      for (const id of affected)
        for (const [user, w] of wanted) {
          const m = model.message(id);
          const existing = m.receivers.get(user);
          // An existing BCC edge the adder may not see is answered `added`, as a new one would be
          // (`unchanged` would reveal it).
          const hidden = existing !== undefined && !model.recipientListedTo(actor, m, user, existing);
          const isNew = model.addReceiver(id, user, w.public, actor);
          (isNew || hidden ? added : unchanged).push(`${id}/${model.uid(user)}`);
          if (isNew && w.notify && user !== actor && model.message(id).author !== user)
            expect_(expected, 'added', model.uid(user), id);
        }
      const gotAdded = res.body.added.map((p) => `${p.message_id}/${p.uid}`);
      const gotUnchanged = res.body.unchanged.map((p) => `${p.message_id}/${p.uid}`);
      if (!sameSet(gotAdded, added) || !sameSet(gotUnchanged, unchanged))
        throw new Divergence(
          `add recipients: added ${show(gotAdded)} unchanged ${show(gotUnchanged)}, expected ${show(added)} / ${show(unchanged)}`,
        );
      return expected;
    }

    case 'public': {
      const target = choose(action.stray ? all : editable, action.message);
      if (!target) return expected;
      const predicted = !model.canSee(actor, target.id) ? 404 : model.mayEdit(actor, target) ? 200 : 403;
      world.log.push(`${who} PATCH public ${target.id} ${action.value}`);
      const res = await world.call(actor, 'PATCH', `/v1/messages/${target.id}/public`, {
        public: action.value,
      });
      expectStatus(world, 'set public', res, predicted);
      if (predicted === 200) model.setPublic(target.id, action.value);
      return expected;
    }

    case 'channels': {
      const target = choose(action.stray ? all : visible, action.message);
      if (!target) return expected;
      const pool = action.stray ? model.channels.map((_, i) => i) : model.channelsOf(actor);
      const listed = [
        ...new Set(
          action.channels.flatMap((raw) => (choose(pool, raw) === undefined ? [] : [choose(pool, raw)!])),
        ),
      ];
      const ids = listed.map((c) => model.channels[c]!.id);
      const predicted = !model.canSee(actor, target.id)
        ? 404
        : listed.every((c) => model.channels[c]!.members.has(actor))
          ? 200
          : 403;
      world.log.push(`${who} PATCH channels ${target.id} ${JSON.stringify(ids)}`);
      const res = await world.call<{ channel_ids: string[] }>(
        actor,
        'PATCH',
        `/v1/messages/${target.id}/channels`,
        { channel_ids: ids },
      );
      expectStatus(world, 'set channels', res, predicted);
      if (predicted !== 200) return expected;
      const before = new Set(target.channels);
      model.setChannels(target.id, actor, listed);
      if (!sameSet(res.body.channel_ids, ids))
        throw new Divergence(`set channels answered ${show(res.body.channel_ids)}, expected ${show(ids)}`);
      for (const c of listed) {
        if (before.has(c)) continue;
        for (const member of model.channels[c]!.members)
          if (member !== actor && member !== target.author)
            expect_(expected, 'channels', model.uid(member), target.id);
      }
      return expected;
    }

    case 'delete': {
      const target = choose(action.stray ? all : editable, action.message);
      if (!target) return expected;
      const below = model.descendants(target.id);
      const predicted = !model.canSee(actor, target.id)
        ? 404
        : model.mayEdit(actor, target) &&
            below.every((d) => model.canSee(actor, d.id) && model.mayEdit(actor, d))
          ? 200
          : 403;
      world.log.push(`${who} DELETE ${target.id}?delete_descendants=true`);
      const res = await world.call<{ deleted: string[] }>(
        actor,
        'DELETE',
        `/v1/messages/${target.id}?delete_descendants=true`,
      );
      expectStatus(world, 'delete', res, predicted);
      if (predicted !== 200) return expected;
      const ids = [target.id, ...below.map((d) => d.id)];
      if (!sameSet(res.body.deleted, ids))
        throw new Divergence(`delete answered ${show(res.body.deleted)}, expected ${show(ids)}`);
      model.remove(ids);
      return expected;
    }

    case 'branch': {
      const target = choose(action.stray ? visible : editable, action.message);
      if (!target) return expected;
      const children = model.visibleChildren(actor, target.id);
      const pool = action.stray ? all.map((m) => m.id) : children;
      const order = [...new Set(action.order.flatMap((raw) => choose(pool, raw) ?? []))];
      const next = action.next === null ? null : (choose(pool, action.next) ?? null);
      const allowed = !model.canSee(actor, target.id) ? 404 : model.mayEdit(actor, target) ? 200 : 403;
      const named = (ids: string[]) =>
        allowed === 200 && !ids.every((id) => children.includes(id)) ? 422 : allowed;
      world.log.push(`${who} PATCH reply_order ${target.id} ${JSON.stringify(order)}`);
      const orderRes = await world.call(actor, 'PATCH', `/v1/messages/${target.id}/reply_order`, {
        reply_order: order,
      });
      expectStatus(world, 'set reply_order', orderRes, named(order));
      if (named(order) === 200) target.replyOrder = order;
      world.log.push(`${who} PATCH default_outgoing ${target.id} ${next}`);
      const nextRes = await world.call(actor, 'PATCH', `/v1/messages/${target.id}/default_outgoing`, {
        default_outgoing: next,
      });
      expectStatus(world, 'set default_outgoing', nextRes, named(next === null ? [] : [next]));
      if (named(next === null ? [] : [next]) === 200) target.defaultOutgoing = next;
      return expected;
    }

    case 'ping': {
      const target = choose(visible, action.message);
      if (!target) return expected;
      const users = [...new Set(action.users.map((u) => u % world.actors.length))];
      world.log.push(`${who} ping ${target.id} ${users.map((u) => `user${u}`).join(',')}`);
      const res = await world.call(actor, 'POST', `/v1/messages/${target.id}/ping`, {
        recipients: users.map((u) => `uid:${model.uid(u)}`),
      });
      expectStatus(world, 'ping', res, 200);
      for (const user of users)
        if (user !== actor && model.canSee(user, target.id))
          expect_(expected, 'ping', model.uid(user), target.id);
      return expected;
    }
  }
}

/** The types of the spec (and of webhooks): the model predicts exactly who gets which. */
const SPEC_TYPES = new Set(['sent', 'ping', 'added', 'channels']);

/** Which user could see which message (`user:id`): the world as it is now. */
function visibility(world: World): Set<string> {
  const visible = new Set<string>();
  for (let user = 0; user < world.actors.length; user++)
    for (const m of world.model.visible(user)) visible.add(`${user}:${m.id}`);
  return visible;
}

/**
 * The user's notifications after `since` (all of them without it), paging with the cursors the
 * service answers; each page is built now, so the usual leak check applies to it as to any read.
 */
async function readNotifications(
  world: World,
  user: number,
  since: string | undefined,
): Promise<{ notifications: Notification[]; cursor: string }> {
  const notifications: Notification[] = [];
  let cursor = since;
  for (;;) {
    const query = cursor === undefined ? '' : `&since=${encodeURIComponent(cursor)}`;
    const res = await world.call<{ notifications: Notification[]; cursor: string; has_more: boolean }>(
      user,
      'GET',
      `/v1/notifications?limit=100${query}`,
    );
    if (res.status !== 200) throw new Divergence(`notifications of user${user}: ${res.status}`);
    notifications.push(...res.body.notifications);
    if (typeof res.body.cursor !== 'string' || res.body.cursor === '')
      throw new Divergence(`notifications of user${user}: cursor ${JSON.stringify(res.body.cursor)}`);
    cursor = res.body.cursor;
    if (!res.body.has_more) return { notifications, cursor };
  }
}

/** Where each user's notifications stand once the world is built (none of them told anything yet). */
async function startCursors(world: World): Promise<void> {
  for (let user = 0; user < world.actors.length; user++) {
    const { notifications, cursor } = await readNotifications(world, user, undefined);
    for (const n of notifications)
      world.problem(`user${user}: notification before any action ${JSON.stringify(n.event)}`);
    world.cursors.set(user, cursor);
  }
}

/**
 * Every user's notifications of the last action, read right after it with each user's cursor: the
 * events of the spec's four types are exactly the expected ones (per type, the messages told of), and
 * every one, message.updated and message.deleted included, shows only what the user can see now, as
 * they see it now (message.deleted only names messages the user could see before the action).
 */
async function checkActionNotifications(
  world: World,
  after: string,
  expected: Expected,
  visibleBefore: Set<string>,
): Promise<void> {
  const { model } = world;
  for (let user = 0; user < world.actors.length; user++) {
    const uid = model.uid(user);
    const { notifications, cursor } = await readNotifications(world, user, world.cursors.get(user));
    world.cursors.set(user, cursor);
    stats.notifications += notifications.length;
    const byType = new Map<string, string[]>();
    for (const n of notifications) {
      if (!SPEC_TYPES.has(n.event.type)) continue;
      byType.set(n.event.type, [
        ...(byType.get(n.event.type) ?? []),
        ...n.event.content.messages.map((m) => m.id),
      ]);
    }
    const got = [...byType].map(([type, ids]) => `${type}=${show(ids)}`);
    for (const [type, ids] of byType)
      if (new Set(ids).size !== ids.length)
        world.problem(`user${user} after ${after}: told twice of a message in ${type}: ${show(ids)}`);
    const wanted = [...expected]
      .filter(([key]) => key.endsWith(`:${uid}`))
      .map(([key, ids]) => `${key.split(':')[0]}=${show([...ids])}`);
    if (!sameSet(got, wanted))
      world.problem(`user${user} notifications after ${after}: got ${show(got)}, expected ${show(wanted)}`);
    for (const n of notifications) checkNotification(world, user, n, `after ${after}`, visibleBefore);
  }
}

/**
 * At the end, every user's notifications from the start, built now: only what each user can see now
 * (an event whose messages were all deleted or hidden since is not handed out), each event once.
 */
async function checkAllNotifications(world: World, everVisible: Set<string>): Promise<void> {
  for (let user = 0; user < world.actors.length; user++) {
    const { notifications } = await readNotifications(world, user, undefined);
    const ids = notifications.map((n) => n.id);
    const cursors = notifications.map((n) => n.cursor);
    if (new Set(ids).size !== ids.length || new Set(cursors).size !== cursors.length)
      world.problem(`user${user}: an event handed out twice when read from the start`);
    for (const n of notifications) checkNotification(world, user, n, 'read at the end', everVisible);
  }
}

function checkNotification(
  world: World,
  user: number,
  n: Notification,
  when: string,
  visibleBefore: Set<string>,
): void {
  const { model } = world;
  const where = `notification ${n.id} (${n.event.type}) ${when}`;
  if (typeof n.cursor !== 'string' || n.cursor === '') world.problem(`user${user} ${where}: no cursor`);
  if (n.event.recipient_uid !== model.uid(user))
    world.problem(`user${user} ${where}: recipient_uid is ${n.event.recipient_uid}`);
  if (n.event.type === 'message.deleted') {
    const deleted = n.event.content.message_ids ?? [];
    if (deleted.length === 0) world.problem(`user${user} ${where}: names no message`);
    for (const id of deleted)
      if (!model.isWorldMessage(id) || model.message(id).alive || !visibleBefore.has(`${user}:${id}`))
        world.problem(`user${user} ${where}: names ${id}, not a deleted message it could see`);
    return;
  }
  const messages = n.event.content.messages;
  const context = n.event.content.context ?? [];
  if (messages.length === 0) world.problem(`user${user} ${where}: handed out with no message`);
  for (const m of [...messages, ...context]) {
    if (!model.isWorldMessage(m.id) || !model.canSee(user, m.id)) {
      world.problem(`user${user} ${where}: shows ${m.id}, which it cannot see`);
      continue;
    }
    const modelled = model.message(m.id);
    const parent = modelled.parent !== null && model.canSee(user, modelled.parent) ? modelled.parent : null;
    if (m.parent_id !== parent)
      world.problem(`user${user} ${where}: ${m.id}.parent_id is ${m.parent_id}, expected ${parent}`);
    if (m.content !== modelled.content || m.author.uid !== model.uid(modelled.author))
      world.problem(`user${user} ${where}: ${m.id} shows another content or author`);
  }
  for (const m of messages)
    if (
      n.event.type !== 'ping' &&
      n.event.type !== 'message.updated' &&
      model.isWorldMessage(m.id) &&
      model.message(m.id).author === user
    )
      world.problem(`user${user} ${where}: told about its own message ${m.id}`);
  const first = messages[0];
  if (first && model.isWorldMessage(first.id)) {
    const ancestors = new Set<string>();
    for (let p = model.message(first.id).parent; p !== null; p = model.message(p).parent) ancestors.add(p);
    for (const c of context)
      if (!ancestors.has(c.id))
        world.problem(`user${user} ${where}: context ${c.id} is no ancestor of ${first.id}`);
  }
}

// ---------------------------------------------------------------- final checks

const MESSAGE_FIELDS = `id content public parent_id root_id reply_ids stitch_parent_ids stitch_child_ids
  channel_ids reply_order default_outgoing recipients { uid user_tag public added_by } author { uid user_tag }`;

interface GraphQLMessage extends Message {
  parent: { id: string } | null;
  replies: { id: string }[];
  stitchParents: { id: string }[];
  stitchChildren: { id: string }[];
  thread: { id: string }[];
  channels: { id: string }[];
}

async function pool<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(size, queue.length) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await run(item);
    }),
  );
}

/** A paginated global view (timeline, public), read until past the world's start. */
async function readUntilWorldStart(world: World, viewer: Viewer, path: string): Promise<Page['messages']> {
  const seen: Page['messages'] = [];
  for (let skip = 0; ; skip += 100) {
    const res = await world.call<Page>(
      viewer,
      'GET',
      `${path}${path.includes('?') ? '&' : '?'}skip=${skip}&limit=100`,
    );
    if (res.status !== 200) throw new Divergence(`${world.name(viewer)} ${path}: ${res.status}`);
    seen.push(...res.body.messages);
    const last = res.body.messages.at(-1);
    if (!res.body.has_more || !last || last.timestamp < world.startedAt || skip > 5000) return seen;
  }
}

function compareView(
  world: World,
  viewer: Viewer,
  where: string,
  messages: Page['messages'],
  expected: string[] | null,
  foreign: 'none' | 'public',
): void {
  const worldIds: string[] = [];
  for (const m of messages) {
    if (!world.model.isWorldMessage(m.id)) {
      if (foreign === 'none' || !m.public)
        world.problem(
          `${world.name(viewer)} ${where}: lists ${m.id}, from outside this world${m.public ? '' : ' and not public'}`,
        );
      continue;
    }
    worldIds.push(m.id);
    world.outputProblems(viewer, where, m);
  }
  if (new Set(worldIds).size !== worldIds.length)
    world.problem(`${world.name(viewer)} ${where}: repeats a message`);
  if (expected && !sameSet(worldIds, expected))
    world.problem(`${world.name(viewer)} ${where}: lists ${show(worldIds)}, expected ${show(expected)}`);
}

/** At most `count` of the items, spread evenly (deterministic, so a replayed world checks the same). */
function sample<T>(items: T[], count: number): T[] {
  if (items.length <= count) return items;
  return Array.from({ length: count }, (_, i) => items[Math.floor((i * items.length) / count)]!);
}

const GRAPHQL_BATCH = 5;
const SAMPLED = 2;

async function checkUser(world: World, viewer: number): Promise<void> {
  const { model } = world;
  const ids = [...model.messages.keys()];
  const name = world.name(viewer);
  const visible = model.visible(viewer).map((m) => m.id);
  const invisible = ids.filter((id) => !model.canSee(viewer, id));

  // Every message of the world by id: the visible ones as the model says, the others the one 404.
  await pool(ids, 3, async (id) => {
    const res = await world.call<Message>(viewer, 'GET', `/v1/messages/${id}`);
    if (model.canSee(viewer, id)) {
      if (res.status !== 200) world.problem(`${name} GET ${id}: ${res.status}, expected 200`);
      else world.outputProblems(viewer, `GET ${id}`, res.body);
    } else if (res.status !== 404 || JSON.stringify(res.body) !== JSON.stringify(missingBody)) {
      world.problem(
        `${name} GET ${id}: ${res.status} ${JSON.stringify(res.body)}, expected the missing-message 404`,
      );
    }
  });

  // GraphQL: the visible ones in batches with every graph field, a few invisible ones alone (a
  // non-null field's error would blank a whole batch).
  const batches: string[][] = [];
  for (let i = 0; i < visible.length; i += GRAPHQL_BATCH) batches.push(visible.slice(i, i + GRAPHQL_BATCH));
  await pool(batches, 2, async (batch) => {
    const fields = batch
      .map(
        (_, i) => `m${i}: message(message_id: $id${i}) { ${MESSAGE_FIELDS}
           parent { id } replies { id } stitchParents { id } stitchChildren { id } thread { id } channels { id } }`,
      )
      .join('\n');
    const gql = await world.graphql<Record<string, GraphQLMessage>>(
      viewer,
      `query(${batch.map((_, i) => `$id${i}: String!`).join(', ')}) { ${fields} }`,
      Object.fromEntries(batch.map((id, i) => [`id${i}`, id])),
    );
    batch.forEach((id, i) => {
      const m = gql.body.data?.[`m${i}`];
      if (!m) {
        world.problem(`${name} GraphQL message(${id}): ${JSON.stringify(gql.body.errors)}`);
        return;
      }
      world.outputProblems(viewer, `GraphQL message(${id})`, m);
      const expected = model.expectedOutput(viewer, id);
      const nested: [string, string[], string[]][] = [
        ['parent', m.parent ? [m.parent.id] : [], expected.parent_id ? [expected.parent_id] : []],
        ['replies', m.replies.map((r) => r.id), expected.reply_ids],
        ['stitchParents', m.stitchParents.map((r) => r.id), expected.stitch_parent_ids],
        ['stitchChildren', m.stitchChildren.map((r) => r.id), expected.stitch_child_ids],
        ['thread', m.thread.map((r) => r.id), model.treeIds(viewer, id).ids],
        ['channels', m.channels.map((r) => r.id), expected.channel_ids],
      ];
      for (const [field, got, want] of nested)
        if (!sameSet(got, want))
          world.problem(`${name} GraphQL message(${id}).${field}: ${show(got)}, expected ${show(want)}`);
    });
  });
  for (const id of sample(invisible, 2)) {
    const gql = await world.graphql<{ message: unknown }>(
      viewer,
      'query($id: String!) { message(message_id: $id) { id } }',
      {
        id,
      },
    );
    const error = gql.body.errors?.[0];
    if (
      gql.body.data ||
      error?.message !== missingGraphQL.message ||
      error.extensions?.code !== missingGraphQL.code
    )
      world.problem(
        `${name} GraphQL message(${id}): ${JSON.stringify(gql.body)}, expected the missing-message error`,
      );
  }

  // The views: exactly the visible messages they are meant to hold (foreign messages only where
  // public messages of the whole store belong).
  compareView(
    world,
    viewer,
    'timeline',
    await readUntilWorldStart(world, viewer, '/v1/messages/timeline'),
    visible,
    'public',
  );
  const views: [string, string, string[]][] = [
    ['inbox', '/v1/messages/inbox?limit=100', model.inbox(viewer)],
    ['history', '/v1/messages/history?limit=100', model.history(viewer)],
    ['search', `/v1/messages/search?q=${world.token}&limit=100`, visible],
  ];
  for (const [label, path, expected] of views) {
    const res = await world.call<Page>(viewer, 'GET', path);
    if (res.status !== 200) world.problem(`${name} ${label}: ${res.status}`);
    else compareView(world, viewer, label, res.body.messages, expected, 'none');
  }
  for (const [index, channel] of model.channels.entries()) {
    if (!channel.members.has(viewer)) continue;
    const res = await world.call<Page>(viewer, 'GET', `/v1/channels/${channel.id}/messages?limit=100`);
    const expected = model
      .alive()
      .filter((m) => m.channels.has(index))
      .map((m) => m.id);
    if (res.status !== 200) world.problem(`${name} channel ${channel.id} messages: ${res.status}`);
    else compareView(world, viewer, `channel ${channel.id} messages`, res.body.messages, expected, 'none');
  }
  const gqlViews = await world.graphql<Record<string, { messages: Message[] }>>(
    viewer,
    `query($q: String!) {
       timeline(limit: 100) { messages { ${MESSAGE_FIELDS} timestamp } }
       inbox(limit: 100) { messages { ${MESSAGE_FIELDS} } }
       history(limit: 100) { messages { ${MESSAGE_FIELDS} } }
       searchMessages(q: $q, limit: 100) { messages { ${MESSAGE_FIELDS} } } }`,
    { q: world.token },
  );
  const data = gqlViews.body.data;
  if (!data) world.problem(`${name} GraphQL views: ${JSON.stringify(gqlViews.body.errors)}`);
  else {
    // One page of the timeline: other files' public messages may push this world's off it.
    const views: [string, Message[], string[] | null, 'public' | 'none'][] = [
      ['timeline', data.timeline!.messages, null, 'public'],
      ['inbox', data.inbox!.messages, model.inbox(viewer), 'none'],
      ['history', data.history!.messages, model.history(viewer), 'none'],
      ['search', data.searchMessages!.messages, visible, 'none'],
    ];
    for (const [label, messages, expected, foreign] of views)
      compareView(world, viewer, `GraphQL ${label}`, messages, expected, foreign);
  }

  // Thread ids once per visible thread; traversals and stitch lists from a few origins.
  const threads = new Map<string, string>();
  for (const id of visible) if (!threads.has(model.message(id).root)) threads.set(model.message(id).root, id);
  await pool([...threads.values()], 2, async (id) => {
    const tree = await world.call<{ root_id: string | null; ids: string[] }>(
      viewer,
      'GET',
      `/v1/messages/${id}/tree-ids`,
    );
    const expectedTree = model.treeIds(viewer, id);
    if (tree.status !== 200) world.problem(`${name} tree-ids ${id}: ${tree.status}`);
    else if (tree.body.root_id !== expectedTree.root_id || !sameSet(tree.body.ids, expectedTree.ids))
      world.problem(
        `${name} tree-ids ${id}: ${JSON.stringify(tree.body)}, expected ${JSON.stringify(expectedTree)}`,
      );
    // The paged thread view holds the same messages, oldest first.
    const thread = await world.call<Page>(viewer, 'GET', `/v1/messages/${id}/thread?limit=100`);
    if (thread.status !== 200) world.problem(`${name} thread of ${id}: ${thread.status}`);
    else {
      compareView(world, viewer, `thread of ${id}`, thread.body.messages, expectedTree.ids, 'none');
      const times = thread.body.messages.map((m) => m.timestamp);
      if (times.some((time, i) => i > 0 && time < times[i - 1]!))
        world.problem(`${name} thread of ${id}: not oldest first ${show(times)}`);
    }
  });
  // The conversation with each user of the world (oneself included).
  await pool([...world.actors.keys()], 2, async (other) => {
    const res = await world.call<Page>(
      viewer,
      'GET',
      `/v1/messages/conversation/${model.uid(other)}?limit=100`,
    );
    const label = `conversation with ${world.name(other)}`;
    if (res.status !== 200) world.problem(`${name} ${label}: ${res.status}`);
    else compareView(world, viewer, label, res.body.messages, model.conversation(viewer, other), 'none');
  });
  const stitched = visible.filter((id) => model.stitches.some((s) => s.from === id || s.to === id));
  const origins: ['replies' | 'links', string][] = [
    ...sample(visible, SAMPLED).map((id) => ['replies', id] as ['replies', string]),
    ...sample(stitched, SAMPLED).map((id) => ['links', id] as ['links', string]),
  ];
  await pool(origins, 2, async ([edge, id]) => {
    const res = await world.call<{ messages: Page['messages']; edges: { from: string; to: string }[] }>(
      viewer,
      'GET',
      `/v1/messages/traverse-from/${id}?up_depth=100&down_depth=100&edge_type=${edge}`,
    );
    const want = model.traverse(viewer, id, edge);
    if (res.status !== 200) {
      world.problem(`${name} traverse ${edge} ${id}: ${res.status}`);
      return;
    }
    compareView(world, viewer, `traverse ${edge} from ${id}`, res.body.messages, want.ids, 'none');
    const edges = res.body.edges.map((e) => `${e.from}>${e.to}`);
    if (!sameSet(edges, want.edges))
      world.problem(
        `${name} traverse ${edge} from ${id}: edges ${show(edges)}, expected ${show(want.edges)}`,
      );
    for (const m of res.body.messages) {
      if (!m.replies || !model.isWorldMessage(m.id)) continue;
      const replies = model.expectedOutput(viewer, m.id).reply_ids;
      if (m.replies.count !== replies.length || !sameSet(m.replies.ids, replies))
        world.problem(
          `${name} traverse from ${id}: ${m.id}.replies ${JSON.stringify(m.replies)}, expected ${show(replies)}`,
        );
    }
    if (edge !== 'links') return;
    for (const direction of ['incoming', 'outgoing'] as const) {
      const links = await world.call<Page>(
        viewer,
        'GET',
        `/v1/links/messages/${id}/${direction}?show_all_links=true&limit=100`,
      );
      const expected = model.expectedOutput(viewer, id);
      const wantLinks = direction === 'incoming' ? expected.stitch_parent_ids : expected.stitch_child_ids;
      if (links.status !== 200) world.problem(`${name} links ${direction} ${id}: ${links.status}`);
      else compareView(world, viewer, `links ${direction} of ${id}`, links.body.messages, wantLinks, 'none');
    }
  });
}

async function checkAnonymous(world: World): Promise<void> {
  const { model } = world;
  const ids = [...model.messages.keys()];
  const publicIds = model.visible(null).map((m) => m.id);
  let firstRefusal: string | undefined;
  let notFoundPage: string | undefined;
  for (const id of [
    ...sample(publicIds, 2),
    ...sample(
      ids.filter((id) => !model.canSee(null, id)),
      2,
    ),
  ]) {
    // The API needs a caller: anonymous reads are refused alike, whether the message exists or not.
    const res = await world.call(null, 'GET', `/v1/messages/${id}`);
    const refusal = `${res.status} ${JSON.stringify(res.body)}`;
    firstRefusal ??= refusal;
    if (res.status !== 401 || refusal !== firstRefusal)
      world.problem(`anonymous GET /v1/messages/${id}: ${refusal}, expected the same 401 for every id`);
  }
  await pool(ids, 3, async (id) => {
    const page = await world.call<string>(null, 'GET', `/messages/${id}`);
    if (model.canSee(null, id)) {
      if (page.status !== 200) world.problem(`anonymous public page ${id}: ${page.status}, expected 200`);
    } else {
      notFoundPage ??= page.body;
      if (page.status !== 404 || page.body !== notFoundPage)
        world.problem(`anonymous public page ${id}: ${page.status}, expected the same 404 page`);
    }
  });

  compareView(
    world,
    null,
    'public view',
    await readUntilWorldStart(world, null, '/v1/messages/public'),
    model.publicView(),
    'public',
  );
  const search = await world.call<Page>(null, 'GET', `/v1/messages/search?q=${world.token}&limit=100`);
  if (search.status !== 200) world.problem(`anonymous search: ${search.status}`);
  else compareView(world, null, 'search', search.body.messages, publicIds, 'none');

  const gql = await world.graphql<Record<string, { messages: Message[] }>>(
    null,
    `query($q: String!) {
       publicMessages(limit: 100) { messages { ${MESSAGE_FIELDS} timestamp } }
       searchMessages(q: $q, limit: 100) { messages { ${MESSAGE_FIELDS} } } }`,
    { q: world.token },
  );
  const data = gql.body.data;
  if (!data) world.problem(`anonymous GraphQL views: ${JSON.stringify(gql.body.errors)}`);
  else {
    compareView(world, null, 'GraphQL publicMessages', data.publicMessages!.messages, null, 'public');
    compareView(world, null, 'GraphQL search', data.searchMessages!.messages, publicIds, 'none');
  }
  for (const id of ids.slice(0, 3)) {
    const res = await world.graphql<{ message: { id: string } }>(
      null,
      'query($id: String!) { message(message_id: $id) { id } }',
      { id },
    );
    if (res.body.data?.message || !res.body.errors?.length)
      world.problem(`anonymous GraphQL message(${id}) answered ${JSON.stringify(res.body)}`);
  }
}

async function runWorld(plan: WorldPlan): Promise<void> {
  const t0 = Date.now();
  const r0 = stats.requests;
  const world = await buildWorld(plan);
  const t1 = Date.now();
  stats.worlds++;
  try {
    await startCursors(world);
    const everVisible = new Set<string>();
    for (const [index, action] of plan.actions.entries()) {
      stats.actions++;
      const before = visibility(world);
      for (const pair of before) everVisible.add(pair);
      const expected = await perform(world, action);
      await checkActionNotifications(world, `action ${index} (${action.kind})`, expected, before);
    }
    await checkAllNotifications(world, everVisible);
    const t2 = Date.now();
    const r2 = stats.requests;
    await pool([...world.actors.keys()], 2, (viewer) => checkUser(world, viewer));
    await checkAnonymous(world);
    if (DEBUG)
      console.log(
        `world ${stats.worlds}: build ${t1 - t0} ms, actions ${t2 - t1} ms (${r2 - r0} requests), ` +
          `checks ${Date.now() - t2} ms (${stats.requests - r2} requests), ${world.model.messages.size} messages`,
      );
  } catch (error) {
    if (!(error instanceof Divergence)) throw error;
    world.problem(error.message);
  }
  if (world.problems.length > 0) {
    throw new Error(
      `${world.problems.length} problem(s):\n  ${world.problems.join('\n  ')}\nwhat happened:\n  ${world.log.join('\n  ')}`,
    );
  }
}

it(
  'when random worlds of users, channels and messages are read by everyone, then each answer shows exactly what the visibility rule allows',
  async () => {
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(worldPlan, (plan) => runWorld(plan)),
      {
        numRuns: RUNS,
        ...(SEED === undefined ? {} : { seed: SEED }),
        ...(PATH ? { path: PATH } : {}),
        endOnFailure: !SHRINK,
      },
    );
    // One line for the notes: how much this run proved.
    console.log(
      `visibility model: ${stats.worlds} worlds, ${stats.actions} actions (${stats.refused} refused as predicted), ` +
        `${stats.messages} messages, ${stats.notifications} notifications, ${stats.requests} requests checked ` +
        `in ${Math.round((Date.now() - started) / 1000)} s`,
    );
  },
  Math.max(600_000, RUNS * 60_000),
);
