// No BCC oracle (security review 2026-11-28 #2, docs/decisions/022): for a caller who is not shown
// BCC entries, adding a user, reading the message back and removing the user answer exactly the
// same whether that user was a hidden BCC recipient (added by the author or by a third person, and
// having read and reacted meanwhile) or never a recipient, in both orders (add then remove, and
// remove alone), over REST and GraphQL; and so do the events that caller and a bystander are
// handed. Each test builds one world per case, runs one probe in each and compares the transcripts
// with every id and time replaced by its role. The hidden recipient keeps the access it was given.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { postMessage, registerWriter, type PostedMessage, type TestUser } from '../support/factories.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

type Hidden = 'never' | 'bcc by the author' | 'bcc by a third person';

/** The people of one test; each world is a message of its own among them. */
interface Cast {
  author: TestUser;
  /** A CC recipient who probes: it is shown no BCC entry but its own. */
  prober: TestUser;
  /** Another CC recipient, who watches. */
  bystander: TestUser;
  /** A CC recipient who, in one case, added the target as BCC. */
  adder: TestUser;
  target: TestUser;
}

interface World extends Cast {
  hidden: Hidden;
  message: PostedMessage;
}

interface Recipient {
  uid: string;
  user_tag: string;
  public: boolean;
  added_by: string | null;
  read_at: string | null;
}

interface Reaction {
  reaction: string;
  count: number;
  me: boolean;
}

interface Notification {
  event: {
    type: string;
    content: { messages?: { id: string }[]; message_ids?: string[]; changes?: string[] };
  };
}

/** What an answer says, transport aside: the status and either the body or the error code. */
interface Answer {
  status: number;
  body: unknown;
}

interface Transport {
  name: string;
  add(user: TestUser, input: Record<string, unknown>): Promise<Answer>;
  remove(user: TestUser, input: Record<string, unknown>): Promise<Answer>;
  read(user: TestUser, id: string): Promise<Answer>;
}

const CASES: Hidden[] = ['never', 'bcc by the author', 'bcc by a third person'];

/**
 * A probe test makes three worlds and some forty requests; the first one in a file also plans every
 * query it runs, which took up to a minute on a busy machine. Not an assertion on time: a bound.
 */
const PROBE_TIMEOUT_MS = 180_000;

let api: TestServer;
beforeAll(async () => {
  api = await startTestServer();
});
afterAll(async () => {
  await api.close();
});

async function expectOk(res: Promise<{ status: number; body: unknown }>, what: string): Promise<void> {
  const { status, body } = await res;
  if (status !== 200) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
}

const react = (user: TestUser, id: string, reaction: string) =>
  expectOk(
    api.request('PUT', `/v1/messages/${id}/reactions/${encodeURIComponent(reaction)}`, { token: user.token }),
    'react',
  );

const markRead = (user: TestUser, id: string) =>
  expectOk(
    api.request('POST', `/v1/messages/${id}/read`, { token: user.token, body: { read: true } }),
    'mark read',
  );

async function cast(): Promise<Cast> {
  const [author, prober, bystander, adder, target] = await Promise.all(
    Array.from({ length: 5 }, () => registerWriter(api)),
  );
  return { author: author!, prober: prober!, bystander: bystander!, adder: adder!, target: target! };
}

/** A message by the author to prober, bystander and adder (CC); the target as the case says. */
async function world(people: Cast, hidden: Hidden): Promise<World> {
  const { author, prober, bystander, adder, target } = people;
  const message = await postMessage(api, author.token, {
    content: 'who else reads this?',
    recipients: [
      prober.tag,
      bystander.tag,
      adder.tag,
      ...(hidden === 'bcc by the author' ? [{ uid: target.uid, public: false }] : []),
    ],
  });
  if (hidden === 'bcc by a third person')
    await expectOk(
      api.request('POST', '/v1/recipients/add', {
        token: adder.token,
        body: { message_id: message.id, recipients: [{ uid: target.uid, public: false }] },
      }),
      'hidden add',
    );
  if (hidden !== 'never') {
    // What the hidden recipient did while hidden must not show once it is shown.
    await markRead(target, message.id);
    await react(target, message.id, '👀');
  }
  return { ...people, hidden, message };
}

function errorAnswer(status: number, body: unknown): Answer {
  return { status, body: { code: (body as { code?: unknown }).code } };
}

const rest: Transport = {
  name: 'REST',
  async add(user, input) {
    const res = await api.request('POST', '/v1/recipients/add', { token: user.token, body: input });
    return res.status === 200 ? { status: 200, body: res.body } : errorAnswer(res.status, res.body);
  },
  async remove(user, input) {
    const res = await api.request('DELETE', '/v1/recipients/remove', { token: user.token, body: input });
    return res.status === 200 ? { status: 200, body: res.body } : errorAnswer(res.status, res.body);
  },
  async read(user, id) {
    const res = await api.request<{ recipients: Recipient[]; reactions: Reaction[] }>(
      'GET',
      `/v1/messages/${id}`,
      { token: user.token },
    );
    if (res.status !== 200) return errorAnswer(res.status, res.body);
    return { status: 200, body: { recipients: res.body.recipients, reactions: res.body.reactions } };
  },
};

async function graphqlAnswer(
  user: TestUser,
  query: string,
  variables: Record<string, unknown>,
  field: string,
): Promise<Answer> {
  const res = await api.graphql<Record<string, unknown>>(query, variables, { token: user.token });
  const error = res.body.errors?.[0];
  if (error) {
    const extensions = error.extensions ?? {};
    return { status: extensions.status as number, body: { code: extensions.code } };
  }
  return { status: 200, body: res.body.data?.[field] };
}

const graphql: Transport = {
  name: 'GraphQL',
  add: (user, input) =>
    graphqlAnswer(
      user,
      `mutation ($input: AddRecipientsInput!) {
        addRecipients(input: $input) { message_ids added { message_id uid } unchanged { message_id uid } }
      }`,
      { input },
      'addRecipients',
    ),
  remove: (user, input) =>
    graphqlAnswer(
      user,
      `mutation ($input: RemoveRecipientsInput!) {
        removeRecipients(input: $input) { message_ids removed { message_id uid } unchanged { message_id uid } }
      }`,
      { input },
      'removeRecipients',
    ),
  read: (user, id) =>
    graphqlAnswer(
      user,
      `query ($id: String!) {
        message(message_id: $id) {
          recipients { uid user_tag public added_by read_at }
          reactions { reaction count me }
        }
      }`,
      { id },
      'message',
    ),
};

/** Where `user`'s notifications stand now. */
async function cursorOf(user: TestUser): Promise<string> {
  const res = await api.request<{ cursor: string }>('GET', '/v1/notifications?limit=100', {
    token: user.token,
  });
  expect(res.status).toBe(200);
  return res.body.cursor;
}

/** The events `user` is handed after `cursor`: their types, the messages and the changes they name. */
async function toldSince(user: TestUser, cursor: string): Promise<unknown[]> {
  const res = await api.request<{ notifications: Notification[] }>(
    'GET',
    `/v1/notifications?limit=100&since=${encodeURIComponent(cursor)}`,
    { token: user.token },
  );
  expect(res.status).toBe(200);
  return res.body.notifications.map(({ event }) => ({
    type: event.type,
    messages: (event.content.messages ?? []).map((m) => m.id),
    message_ids: event.content.message_ids ?? [],
    changes: event.content.changes ?? [],
  }));
}

/**
 * The transcript with every uid, tag and message id replaced by its role, and every time by <time>.
 * The post's recipients share one added_at, so among them the list orders by uid, which differs
 * from world to world: a recipient list is given sorted by role, with the target's place in the
 * answer kept beside it (a hidden entry sorted by its own older time would show there).
 */
function byRole(w: World, transcript: unknown): unknown {
  const roles = {
    author: w.author,
    prober: w.prober,
    bystander: w.bystander,
    adder: w.adder,
    target: w.target,
  };
  let text = JSON.stringify(transcript);
  // Tags first: a tag is longer than a uid and could, in theory, hold one.
  for (const [role, user] of Object.entries(roles)) text = text.replaceAll(user.tag, `<${role} tag>`);
  for (const [role, user] of Object.entries(roles)) text = text.replaceAll(user.uid, `<${role}>`);
  text = text.replaceAll(w.message.id, '<message>');
  text = text.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '<time>');
  return JSON.parse(text, (key, value: unknown) => {
    if (key !== 'recipients' || !Array.isArray(value)) return value;
    const listed = value as Recipient[];
    return {
      by_role: [...listed].sort((a, b) => a.uid.localeCompare(b.uid)),
      target_at: listed.findIndex((r) => r.uid === '<target>'),
    };
  });
}

interface Entry {
  public: boolean;
  notify: boolean;
}

/**
 * The prober adds the target, and the target (told or not) reads the message and reacts to it, as
 * a new recipient would; prober and bystander read back, the bystander tries to remove the target;
 * then the prober removes it and both read back again. Answers and the events handed out after the
 * start, by role.
 */
async function addThenRemove(w: World, t: Transport, entry: Entry): Promise<unknown> {
  const target = { recipient_uid: w.target.uid, message_id: w.message.id };
  const since = { prober: await cursorOf(w.prober), bystander: await cursorOf(w.bystander) };
  const targetSince = await cursorOf(w.target);
  const log: [string, unknown][] = [];
  log.push([
    'prober adds',
    await t.add(w.prober, {
      message_id: w.message.id,
      recipients: [{ uid: w.target.uid, public: entry.public, notify: entry.notify }],
    }),
  ]);
  log.push(['target is told', await toldSince(w.target, targetSince)]);
  log.push(['prober reads', await t.read(w.prober, w.message.id)]);
  await markRead(w.target, w.message.id);
  await react(w.target, w.message.id, '👍');
  log.push(['prober reads after the target did', await t.read(w.prober, w.message.id)]);
  log.push(['bystander reads', await t.read(w.bystander, w.message.id)]);
  log.push(['bystander removes', await t.remove(w.bystander, target)]);
  log.push([
    'prober adds again',
    await t.add(w.prober, { message_id: w.message.id, recipients: [{ uid: w.target.uid }] }),
  ]);
  log.push(['prober removes', await t.remove(w.prober, target)]);
  log.push(['prober reads after removing', await t.read(w.prober, w.message.id)]);
  log.push(['bystander reads after removing', await t.read(w.bystander, w.message.id)]);
  log.push(['prober removes again', await t.remove(w.prober, target)]);
  log.push(['prober is told', await toldSince(w.prober, since.prober)]);
  log.push(['bystander is told', await toldSince(w.bystander, since.bystander)]);
  return byRole(w, log);
}

/** The prober removes a target it never added, then prober and bystander read back. */
async function removeAlone(w: World, t: Transport): Promise<unknown> {
  const target = { recipient_uid: w.target.uid, message_id: w.message.id };
  const since = { prober: await cursorOf(w.prober), bystander: await cursorOf(w.bystander) };
  const log: [string, unknown][] = [];
  log.push(['prober removes', await t.remove(w.prober, target)]);
  log.push(['prober reads', await t.read(w.prober, w.message.id)]);
  log.push(['bystander removes', await t.remove(w.bystander, target)]);
  log.push(['bystander reads', await t.read(w.bystander, w.message.id)]);
  log.push(['prober is told', await toldSince(w.prober, since.prober)]);
  log.push(['bystander is told', await toldSince(w.bystander, since.bystander)]);
  return byRole(w, log);
}

/**
 * One world per case among the same people, the same probe in each, one after the other (so that
 * the events a probe reads are its own): the transcripts by case.
 */
async function transcripts(probe: (w: World) => Promise<unknown>): Promise<Map<Hidden, unknown>> {
  const people = await cast();
  const worlds = await Promise.all(CASES.map((hidden) => world(people, hidden)));
  const found = new Map<Hidden, unknown>();
  for (const w of worlds) found.set(w.hidden, await probe(w));
  return found;
}

function expectAllTheSame(found: Map<Hidden, unknown>): void {
  const never = found.get('never');
  for (const hidden of CASES)
    expect({ hidden, transcript: found.get(hidden) }).toEqual({ hidden, transcript: never });
}

async function recipientsSeenBy(user: TestUser, id: string): Promise<Recipient[]> {
  const res = await api.request<{ recipients: Recipient[] }>('GET', `/v1/messages/${id}`, {
    token: user.token,
  });
  expect(res.status).toBe(200);
  return res.body.recipients;
}

describe.each([rest, graphql])('a CC recipient probing for a hidden BCC recipient over $name', (t) => {
  it(
    'when it adds the user as CC without notifying, reads back and removes them, then every answer and event is the one a never-added user gives',
    async () => {
      const found = await transcripts((w) => addThenRemove(w, t, { public: true, notify: false }));
      expectAllTheSame(found);
      // The transcript says what a new CC recipient's does, so the comparison is about something.
      const log = new Map(found.get('never') as [string, unknown][]);
      expect(log.get('prober adds')).toEqual({
        status: 200,
        body: {
          message_ids: ['<message>'],
          added: [{ message_id: '<message>', uid: '<target>' }],
          unchanged: [],
        },
      });
      expect(log.get('target is told')).toEqual([]);
      expect(log.get('prober reads')).toEqual({
        status: 200,
        body: {
          recipients: {
            by_role: [
              expect.objectContaining({ uid: '<adder>' }),
              expect.objectContaining({ uid: '<bystander>' }),
              expect.objectContaining({ uid: '<prober>' }),
              {
                uid: '<target>',
                user_tag: '<target tag>',
                public: true,
                added_by: '<prober>',
                read_at: null,
              },
            ],
            target_at: 3,
          },
          reactions: [],
        },
      });
      expect(log.get('prober reads after the target did')).toEqual({
        status: 200,
        body: {
          recipients: expect.objectContaining({
            by_role: expect.arrayContaining([
              {
                uid: '<target>',
                user_tag: '<target tag>',
                public: true,
                added_by: '<prober>',
                read_at: '<time>',
              },
            ]),
          }),
          reactions: [{ reaction: '👍', count: 1, me: false }],
        },
      });
      expect(log.get('bystander removes')).toEqual({ status: 403, body: { code: 'forbidden' } });
      expect(log.get('prober removes')).toMatchObject({
        body: { removed: [{ message_id: '<message>', uid: '<target>' }], unchanged: [] },
      });
      expect(log.get('bystander is told')).toEqual([
        { type: 'message.updated', messages: ['<message>'], message_ids: [], changes: ['recipients'] },
        { type: 'message.updated', messages: ['<message>'], message_ids: [], changes: ['reactions'] },
        { type: 'message.updated', messages: ['<message>'], message_ids: [], changes: ['recipients'] },
      ]);
    },
    PROBE_TIMEOUT_MS,
  );

  it(
    'when it adds the user as BCC with notification, reads back and removes them, then every answer and event is the one a never-added user gives',
    async () => {
      const found = await transcripts((w) => addThenRemove(w, t, { public: false, notify: true }));
      expectAllTheSame(found);
      const log = new Map(found.get('never') as [string, unknown][]);
      expect(log.get('target is told')).toEqual([
        { type: 'added', messages: ['<message>'], message_ids: [], changes: [] },
      ]);
      expect(log.get('prober reads')).toMatchObject({
        body: {
          recipients: {
            by_role: expect.arrayContaining([
              {
                uid: '<target>',
                user_tag: '<target tag>',
                public: false,
                added_by: '<prober>',
                read_at: null,
              },
            ]),
            target_at: 3,
          },
        },
      });
      expect(log.get('bystander removes')).toMatchObject({
        body: { removed: [], unchanged: [expect.anything()] },
      });
    },
    PROBE_TIMEOUT_MS,
  );

  it(
    'when it removes a user it never added, then the answer and the read-back are those of a never-added user',
    async () => {
      const found = await transcripts((w) => removeAlone(w, t));
      expectAllTheSame(found);
      const log = new Map(found.get('never') as [string, unknown][]);
      expect(log.get('prober removes')).toEqual({
        status: 200,
        body: {
          message_ids: ['<message>'],
          removed: [],
          unchanged: [{ message_id: '<message>', uid: '<target>' }],
        },
      });
      expect(log.get('prober is told')).toEqual([]);
      expect(log.get('bystander is told')).toEqual([]);
    },
    PROBE_TIMEOUT_MS,
  );
});

describe('the same probe over both transports', () => {
  it(
    'when a CC recipient adds then removes a user over REST and over GraphQL, then both transcripts are the same',
    async () => {
      const entry = { public: true, notify: true };
      const overRest = await transcripts((w) => addThenRemove(w, rest, entry));
      const overGraphql = await transcripts((w) => addThenRemove(w, graphql, entry));
      for (const hidden of CASES)
        expect({ hidden, graphql: overGraphql.get(hidden) }).toEqual({
          hidden,
          graphql: overRest.get(hidden),
        });
    },
    PROBE_TIMEOUT_MS,
  );

  it(
    'when a CC recipient removes a user it never added over REST and over GraphQL, then both transcripts are the same',
    async () => {
      const aloneRest = await transcripts((w) => removeAlone(w, rest));
      const aloneGraphql = await transcripts((w) => removeAlone(w, graphql));
      for (const hidden of CASES)
        expect({ hidden, graphql: aloneGraphql.get(hidden) }).toEqual({
          hidden,
          graphql: aloneRest.get(hidden),
        });
    },
    PROBE_TIMEOUT_MS,
  );
});

describe('what the hidden recipient keeps', () => {
  it('when a probe adds and removes a hidden BCC recipient, then the recipient keeps its access and the author sees the entry as before', async () => {
    const w = await world(await cast(), 'bcc by the author');
    const before = await recipientsSeenBy(w.author, w.message.id);
    await addThenRemove(w, rest, { public: true, notify: true });
    expect((await rest.read(w.target, w.message.id)).status).toBe(200);
    const after = await recipientsSeenBy(w.author, w.message.id);
    const entry = (list: Recipient[]) => list.find((r) => r.uid === w.target.uid);
    expect(entry(after)).toEqual({ ...entry(before)!, read_at: expect.any(String) });
    expect(entry(after)).toMatchObject({ public: false, added_by: w.author.uid });
  });

  it('when a probe removes a hidden BCC recipient alone, then the entry stays as it was', async () => {
    const w = await world(await cast(), 'bcc by a third person');
    const before = await recipientsSeenBy(w.author, w.message.id);
    await removeAlone(w, rest);
    expect(await recipientsSeenBy(w.author, w.message.id)).toEqual(before);
    expect((await rest.read(w.target, w.message.id)).status).toBe(200);
  });

  it('when an entry is laid over a third person’s BCC entry, then that person still sees and may remove its own entry, and the prober its own', async () => {
    const w = await world(await cast(), 'bcc by a third person');
    const own = { uid: w.target.uid, public: false };
    await expectOk(
      api.request('POST', '/v1/recipients/add', {
        token: w.prober.token,
        body: { message_id: w.message.id, recipients: [{ ...own, notify: false }] },
      }),
      'probe',
    );
    const entryFor = async (viewer: TestUser) =>
      (await recipientsSeenBy(viewer, w.message.id)).find((r) => r.uid === w.target.uid);
    expect(await entryFor(w.adder)).toMatchObject({ ...own, added_by: w.adder.uid });
    expect(await entryFor(w.prober)).toMatchObject({ ...own, added_by: w.prober.uid });
    expect(await entryFor(w.bystander)).toBeUndefined();
    // The author and the recipient are shown the entry on top.
    expect(await entryFor(w.author)).toMatchObject({ ...own, added_by: w.prober.uid });
    expect(await entryFor(w.target)).toMatchObject({ ...own, added_by: w.prober.uid });

    const byAdder = await rest.remove(w.adder, { recipient_uid: w.target.uid, message_id: w.message.id });
    expect(byAdder.body).toMatchObject({ removed: [{ message_id: w.message.id, uid: w.target.uid }] });
    expect(await entryFor(w.adder)).toBeUndefined();
    expect(await entryFor(w.prober)).toMatchObject({ added_by: w.prober.uid });

    const byProber = await rest.remove(w.prober, { recipient_uid: w.target.uid, message_id: w.message.id });
    expect(byProber.body).toMatchObject({ removed: [{ message_id: w.message.id, uid: w.target.uid }] });
    expect(await entryFor(w.author)).toBeUndefined();
    expect((await rest.read(w.target, w.message.id)).status).toBe(404);
  });

  it('when the author removes a recipient with an entry laid over a hidden one, then the recipient goes altogether', async () => {
    const w = await world(await cast(), 'bcc by a third person');
    await expectOk(
      api.request('POST', '/v1/recipients/add', {
        token: w.prober.token,
        body: { message_id: w.message.id, recipients: [{ uid: w.target.uid, notify: false }] },
      }),
      'probe',
    );
    const res = await rest.remove(w.author, { recipient_uid: w.target.uid, message_id: w.message.id });
    expect(res.body).toMatchObject({ removed: [{ message_id: w.message.id, uid: w.target.uid }] });
    for (const viewer of [w.author, w.adder, w.prober])
      expect((await recipientsSeenBy(viewer, w.message.id)).map((r) => r.uid)).not.toContain(w.target.uid);
    expect((await rest.read(w.target, w.message.id)).status).toBe(404);
  });

  it('when the recipient removes itself from an entry laid over a hidden one, then it goes altogether', async () => {
    const w = await world(await cast(), 'bcc by the author');
    await expectOk(
      api.request('POST', '/v1/recipients/add', {
        token: w.prober.token,
        body: { message_id: w.message.id, recipients: [{ uid: w.target.uid, notify: false }] },
      }),
      'probe',
    );
    const res = await rest.remove(w.target, { recipient_uid: w.target.uid, message_id: w.message.id });
    expect(res.body).toMatchObject({ removed: [{ message_id: w.message.id, uid: w.target.uid }] });
    expect((await rest.read(w.target, w.message.id)).status).toBe(404);
    expect((await recipientsSeenBy(w.author, w.message.id)).map((r) => r.uid)).not.toContain(w.target.uid);
  });
});
