// The only code that runs the recipients' Cypher. Takes and returns plain objects; every function
// runs inside the caller's write transaction, so a request reads and writes one consistent state.
import type { Tx } from '../../platform/neo4j/database.js';
import type { PropagationStrategy } from './recipients.schemas.js';

export interface AddTargets {
  /** Named messages the viewer can see. */
  named: string[];
  /** Messages propagation adds (may repeat named ones), oldest first. */
  propagated: string[];
  /** 'tag:<folded tag>' or 'uid:<uid>' → uid, for the users that exist. */
  users: Map<string, string>;
}

export async function resolveAddTargets(
  tx: Tx,
  viewerUid: string,
  wanted: { message_ids: string[]; strategy: PropagationStrategy; tags: string[]; uids: string[] },
): Promise<AddTargets> {
  const [row] = await tx.run('recipients/resolve-add-targets', { viewer_uid: viewerUid, ...wanted });
  const users = (row?.users ?? []) as { key: string; uid: string }[];
  return {
    named: (row?.named ?? []) as string[],
    propagated: (row?.propagated ?? []) as string[],
    users: new Map(users.map((u) => [u.key, u.uid])),
  };
}

export interface ReceiverEdge {
  message_id: string;
  uid: string;
}

/**
 * Adds the adder's entry on each pair: a new edge, or one laid over an edge the adder is shown no
 * entry of (decision 022); an edge whose entry the adder is shown stays as it is (first add wins).
 * Answers every pair with whether this call added an entry, and that entry's CC/BCC flag.
 */
export async function mergeReceivers(
  tx: Tx,
  adderUid: string,
  pairs: (ReceiverEdge & { public: boolean })[],
): Promise<(ReceiverEdge & { added: boolean; public: boolean })[]> {
  if (pairs.length === 0) return [];
  const messageIds = [...new Set(pairs.map((p) => p.message_id))].sort();
  await tx.run('recipients/lock-messages', { message_ids: messageIds });
  const rows = await tx.run('recipients/merge-receivers', {
    viewer_uid: adderUid,
    pairs,
    now: new Date().toISOString(),
  });
  return rows as unknown as (ReceiverEdge & { added: boolean; public: boolean })[];
}

export interface Authorship {
  message_id: string;
  author_uid: string;
  manager_uids: string[];
}

export interface RemovalTargets {
  recipientExists: boolean;
  named: string[];
  /** Visible reply descendants holding an edge to the recipient, oldest first (empty unless asked). */
  descendants: string[];
  authorship: Map<string, Authorship>;
}

export async function findRemovalTargets(
  tx: Tx,
  viewerUid: string,
  wanted: { message_ids: string[]; recipient_uid: string; propagate: boolean },
): Promise<RemovalTargets> {
  const [row] = await tx.run('recipients/find-removal-targets', { viewer_uid: viewerUid, ...wanted });
  const authorship = (row?.authorship ?? []) as Authorship[];
  return {
    recipientExists: row?.recipient_exists === true,
    named: (row?.named ?? []) as string[],
    descendants: (row?.descendants ?? []) as string[],
    authorship: new Map(authorship.map((a) => [a.message_id, a])),
  };
}

/**
 * Takes the remover's entry off each edge, or with `altogether` the whole edge (decision 022);
 * answers the pairs where something went (an edge or entry removed concurrently is not there).
 */
export async function deleteReceivers(
  tx: Tx,
  removerUid: string,
  pairs: (ReceiverEdge & { altogether: boolean })[],
): Promise<ReceiverEdge[]> {
  if (pairs.length === 0) return [];
  const rows = await tx.run('recipients/delete-receivers', { viewer_uid: removerUid, pairs });
  return rows as unknown as ReceiverEdge[];
}
