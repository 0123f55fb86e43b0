// An in-memory model of who may see what, written from the spec's "Visibility rule" and the
// contract's notes on MessageOutput and the views, independently of the Cypher that implements it.
// The property test (visibility-model.int.test.ts) drives the real API and this model side by side
// and compares every answer with what the model allows and expects.
//
// Users are numbered 0..n-1 in the model; `null` is an anonymous reader. A user may manage others
// (a managed bot); managing never widens visibility, it only allows author-only edits.

export type Viewer = number | null;

export interface ModelReceiver {
  public: boolean;
  addedBy: number;
  /** Adders of the BCC entries this one was laid over, oldest first (decision 022). */
  covered?: number[];
}

export interface ModelMessage {
  id: string;
  author: number;
  content: string;
  /** A word unique to this message, put in its content: it must never show up where the message may not. */
  nonce: string;
  parent: string | null;
  root: string;
  public: boolean;
  createdAt: string;
  alive: boolean;
  /** Channel indexes holding the message. */
  channels: Set<number>;
  /** Who included the message in each channel of `channels` (an inclusion keeps its first adder). */
  channelAdders: Map<number, number>;
  /** Receivers by user index, in the order they were added. */
  receivers: Map<number, ModelReceiver>;
  /** Author-curated order of children, and the default continuation (as stored; shown filtered). */
  replyOrder: string[] | null;
  defaultOutgoing: string | null;
}

export interface ModelChannel {
  id: string;
  members: Set<number>;
}

export interface ModelStitch {
  from: string;
  to: string;
  by: number;
}

/** What a MessageOutput seen by a viewer must say, as sets (the API's order is not the point here). */
export interface ExpectedOutput {
  parent_id: string | null;
  root_id: string | null;
  reply_ids: string[];
  stitch_parent_ids: string[];
  stitch_child_ids: string[];
  channel_ids: string[];
  /** `uid|public|added_by` of each recipient entry the viewer may see. */
  recipients: string[];
  /** Ordered: the stored order, keeping only children the viewer may see. */
  reply_order: string[] | null;
  default_outgoing: string | null;
  public: boolean;
  author_uid: string;
  content: string;
}

export class VisibilityModel {
  readonly messages = new Map<string, ModelMessage>();
  readonly channels: ModelChannel[] = [];
  stitches: ModelStitch[] = [];
  /** managed user index → manager index */
  readonly managerOf = new Map<number, number>();

  constructor(readonly uids: string[]) {}

  userCount(): number {
    return this.uids.length;
  }

  uid(user: number): string {
    return this.uids[user]!;
  }

  indexOfUid(uid: string): number {
    const index = this.uids.indexOf(uid);
    if (index < 0) throw new Error(`unknown uid ${uid}`);
    return index;
  }

  message(id: string): ModelMessage {
    const m = this.messages.get(id);
    if (!m) throw new Error(`unknown message ${id}`);
    return m;
  }

  isWorldMessage(id: string): boolean {
    return this.messages.has(id);
  }

  alive(): ModelMessage[] {
    return [...this.messages.values()].filter((m) => m.alive);
  }

  channelsOf(user: number): number[] {
    return this.channels.flatMap((c, index) => (c.members.has(user) ? [index] : []));
  }

  /** THE rule: public, or the author, or a receivers edge, or a member of a channel holding it. */
  canSee(viewer: Viewer, id: string): boolean {
    const m = this.messages.get(id);
    if (!m || !m.alive) return false;
    if (m.public) return true;
    if (viewer === null) return false;
    if (m.author === viewer) return true;
    if (m.receivers.has(viewer)) return true;
    for (const channel of m.channels) if (this.channels[channel]!.members.has(viewer)) return true;
    return false;
  }

  visible(viewer: Viewer): ModelMessage[] {
    return this.alive().filter((m) => this.canSee(viewer, m.id));
  }

  /** Author, or a manager of the author (author-only edits). */
  mayEdit(actor: number, m: ModelMessage): boolean {
    return m.author === actor || this.managerOf.get(m.author) === actor;
  }

  children(id: string): ModelMessage[] {
    return this.alive().filter((m) => m.parent === id);
  }

  /** The reply subtree below a message (not including it). */
  descendants(id: string): ModelMessage[] {
    const found: ModelMessage[] = [];
    const queue = [id];
    while (queue.length > 0) {
      for (const child of this.children(queue.shift()!)) {
        found.push(child);
        queue.push(child.id);
      }
    }
    return found;
  }

  /** A BCC entry is listed only to the author, its adder and that recipient. */
  recipientListedTo(viewer: Viewer, m: ModelMessage, user: number, r: ModelReceiver): boolean {
    return this.entryShownTo(viewer, m, user, r) !== null;
  }

  /** The entry on top, else a covered BCC entry to its own adder only (decision 022). */
  entryShownTo(viewer: Viewer, m: ModelMessage, user: number, r: ModelReceiver): ModelReceiver | null {
    if (r.public || (viewer !== null && (viewer === m.author || viewer === r.addedBy || viewer === user)))
      return r;
    return viewer !== null && r.covered?.includes(viewer) ? { public: false, addedBy: viewer } : null;
  }

  expectedOutput(viewer: Viewer, id: string): ExpectedOutput {
    const m = this.message(id);
    const seen = (other: string | null) => (other !== null && this.canSee(viewer, other) ? other : null);
    const links = (pick: (s: ModelStitch) => string | null) =>
      unique(this.stitches.map(pick).filter((other): other is string => seen(other) !== null));
    const children = new Set(this.visibleChildren(viewer, id));
    return {
      parent_id: seen(m.parent),
      root_id: this.shownRoot(viewer, id),
      reply_ids: this.children(id)
        .filter((c) => this.canSee(viewer, c.id))
        .map((c) => c.id),
      stitch_parent_ids: links((s) => (s.to === id ? s.from : null)),
      stitch_child_ids: links((s) => (s.from === id ? s.to : null)),
      channel_ids:
        viewer === null
          ? []
          : [...m.channels]
              .filter((c) => this.channels[c]!.members.has(viewer))
              .map((c) => this.channels[c]!.id),
      recipients: [...m.receivers].flatMap(([user, top]) => {
        const r = this.entryShownTo(viewer, m, user, top);
        return r ? [`${this.uid(user)}|${r.public}|${this.uid(r.addedBy)}`] : [];
      }),
      reply_order: m.replyOrder === null ? null : m.replyOrder.filter((c) => children.has(c)),
      default_outgoing:
        m.defaultOutgoing !== null && children.has(m.defaultOutgoing) ? m.defaultOutgoing : null,
      public: m.public,
      author_uid: this.uid(m.author),
      content: m.content,
    };
  }

  /**
   * The root a message shows the viewer (security review 2026-12-02): its own id when the viewer
   * may not see its parent (or it has none), as a real root; else the thread root when visible;
   * else the topmost ancestor reached through parents the viewer may see. Never null.
   */
  shownRoot(viewer: Viewer, id: string): string {
    const m = this.message(id);
    if (m.parent === null || !this.canSee(viewer, m.parent)) return m.id;
    if (this.canSee(viewer, m.root)) return m.root;
    let top = m;
    while (top.parent !== null && this.canSee(viewer, top.parent)) top = this.message(top.parent);
    return top.id;
  }

  /** Reply children and stitch children of a message that the viewer may see: what branching may name. */
  visibleChildren(viewer: Viewer, id: string): string[] {
    return unique([
      ...this.children(id).map((c) => c.id),
      ...this.stitches.filter((st) => st.from === id).map((st) => st.to),
    ]).filter((c) => this.canSee(viewer, c));
  }

  /** Threads (by root) where the viewer received a message or sent one to someone else; newest visible each. */
  inbox(viewer: number): string[] {
    const roots = new Set<string>();
    for (const m of this.alive()) {
      const received = m.receivers.has(viewer);
      const sentToOthers = m.author === viewer && [...m.receivers.keys()].some((u) => u !== viewer);
      if (received || sentToOthers) roots.add(m.root);
    }
    return [...roots].flatMap((root) => {
      const entry = newest(this.visible(viewer).filter((m) => m.root === root));
      return entry ? [entry.id] : [];
    });
  }

  /** Threads the viewer wrote in: the root when visible, else the viewer's earliest message there. */
  history(viewer: number): string[] {
    const roots = new Set(
      this.alive()
        .filter((m) => m.author === viewer)
        .map((m) => m.root),
    );
    return [...roots].map((root) => {
      if (this.canSee(viewer, root)) return root;
      return oldest(this.alive().filter((m) => m.root === root && m.author === viewer))!.id;
    });
  }

  /** For each thread holding a public message, its newest public message. */
  publicView(): string[] {
    const roots = new Set(
      this.alive()
        .filter((m) => m.public)
        .map((m) => m.root),
    );
    return [...roots].map((root) => newest(this.alive().filter((m) => m.public && m.root === root))!.id);
  }

  /** Messages between two users: each one the author, the other a receiver (CC or BCC). */
  conversation(viewer: number, other: number): string[] {
    return this.alive()
      .filter(
        (m) =>
          (m.author === viewer && m.receivers.has(other)) || (m.author === other && m.receivers.has(viewer)),
      )
      .map((m) => m.id);
  }

  treeIds(viewer: number, id: string): { root_id: string; ids: string[] } {
    const m = this.message(id);
    return {
      root_id: this.shownRoot(viewer, id),
      ids: this.visible(viewer)
        .filter((t) => t.root === m.root)
        .map((t) => t.id),
    };
  }

  /**
   * Traversal with unbounded depths: the origin, the ancestors reached upward and the descendants
   * reached downward without ever stepping on a message the viewer may not see.
   */
  traverse(viewer: number, origin: string, edge: 'replies' | 'links'): { ids: string[]; edges: string[] } {
    const up = (id: string): string[] =>
      edge === 'replies'
        ? [this.message(id).parent].filter((p): p is string => p !== null)
        : unique(this.stitches.filter((s) => s.to === id).map((s) => s.from));
    const down = (id: string): string[] =>
      edge === 'replies'
        ? this.children(id).map((c) => c.id)
        : unique(this.stitches.filter((s) => s.from === id).map((s) => s.to));
    const reached = new Set([origin]);
    for (const step of [up, down]) {
      const seen = new Set([origin]);
      const queue = [origin];
      while (queue.length > 0) {
        for (const next of step(queue.shift()!)) {
          if (seen.has(next) || !this.canSee(viewer, next)) continue;
          seen.add(next);
          reached.add(next);
          queue.push(next);
        }
      }
    }
    const edges =
      edge === 'replies'
        ? this.alive()
            .filter((m) => m.parent !== null && reached.has(m.id) && reached.has(m.parent))
            .map((m) => `${m.parent}>${m.id}`)
        : unique(
            this.stitches
              .filter((s) => reached.has(s.from) && reached.has(s.to))
              .map((s) => `${s.from}>${s.to}`),
          );
    return { ids: [...reached], edges };
  }

  // ---- changes, applied after the API said they happened ----

  addMessage(m: Omit<ModelMessage, 'alive' | 'replyOrder' | 'defaultOutgoing' | 'channelAdders'>): void {
    const channelAdders = new Map([...m.channels].map((c) => [c, m.author]));
    this.messages.set(m.id, { ...m, channelAdders, alive: true, replyOrder: null, defaultOutgoing: null });
  }

  /**
   * PATCH public. Made private, the message keeps only the inclusions whose adder still sees it
   * without the flag: its author, a recipient, or a member of another channel whose inclusion stays
   * (to a fixed point: strangers' channels do not keep each other).
   */
  setPublic(id: string, isPublic: boolean): void {
    const m = this.message(id);
    m.public = isPublic;
    if (isPublic) return;
    const kept = new Set(
      [...m.channels].filter((c) => {
        const adder = m.channelAdders.get(c)!;
        return adder === m.author || m.receivers.has(adder);
      }),
    );
    for (let grew = true; grew;) {
      grew = false;
      for (const c of m.channels) {
        if (kept.has(c)) continue;
        const adder = m.channelAdders.get(c)!;
        if ([...kept].some((other) => this.channels[other]!.members.has(adder))) {
          kept.add(c);
          grew = true;
        }
      }
    }
    for (const c of [...m.channels]) {
      if (kept.has(c)) continue;
      m.channels.delete(c);
      m.channelAdders.delete(c);
    }
  }

  /** Whether the adder's entry went on: new, or laid over an edge the adder is shown no entry of. */
  addReceiver(id: string, user: number, isPublic: boolean, addedBy: number): boolean {
    const m = this.message(id);
    const existing = m.receivers.get(user);
    if (existing && this.recipientListedTo(addedBy, m, user, existing)) return false;
    const covered = existing ? [...(existing.covered ?? []), existing.addedBy] : undefined;
    m.receivers.set(user, { public: isPublic, addedBy, ...(covered ? { covered } : {}) });
    return true;
  }

  addStitch(from: string, to: string, by: number): void {
    if (!this.stitches.some((s) => s.from === from && s.to === to && s.by === by))
      this.stitches.push({ from, to, by });
  }

  /** PATCH channels: among the actor's channels, exactly the listed ones hold the message. */
  setChannels(id: string, actor: number, listed: number[]): void {
    const m = this.message(id);
    for (const c of this.channelsOf(actor)) if (!listed.includes(c)) m.channels.delete(c);
    for (const c of this.channelsOf(actor)) if (!listed.includes(c)) m.channelAdders.delete(c);
    for (const c of listed) {
      m.channels.add(c);
      if (!m.channelAdders.has(c)) m.channelAdders.set(c, actor);
    }
  }

  remove(ids: string[]): void {
    const gone = new Set(ids);
    for (const id of ids) {
      const m = this.message(id);
      m.alive = false;
      m.receivers.clear();
      m.channels.clear();
      m.channelAdders.clear();
    }
    this.stitches = this.stitches.filter((s) => !gone.has(s.from) && !gone.has(s.to));
  }

  /** Messages the ANCESTORS strategy adds: reply ancestors up to the first the actor cannot see. */
  visibleAncestors(actor: number, id: string): string[] {
    const found: string[] = [];
    let parent = this.message(id).parent;
    while (parent !== null && this.canSee(actor, parent)) {
      found.push(parent);
      parent = this.message(parent).parent;
    }
    return found;
  }

  /** Messages the TREE strategy adds: every message of the same thread the actor can see. */
  visibleThread(actor: number, id: string): string[] {
    const root = this.message(id).root;
    return this.visible(actor)
      .filter((m) => m.root === root)
      .map((m) => m.id);
  }
}

function byTime(a: ModelMessage, b: ModelMessage): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function newest(messages: ModelMessage[]): ModelMessage | undefined {
  return [...messages].sort(byTime).at(-1);
}

export function oldest(messages: ModelMessage[]): ModelMessage | undefined {
  return [...messages].sort(byTime)[0];
}

export function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}
