// How far a participation record's last_wrote_at (schema 020, docs/decisions/020-participation-records.md)
// may lag behind its author's newest message in the thread. A post leaves the record alone when it
// is at most this much newer, so an author posting many replies into one thread at once (a bot
// answering, the peer run's chained replies) changes the record about once per slack, not once per
// post: every change locks the record until its transaction commits, and those posts would queue on
// it. History, which orders threads by the exact time, looks up the exact time for every record
// within this slack of the page's last one (cypher/threads/history.cypher); the inbox uses the time
// as a floor, which a lower value still is.
export const PARTICIPATION_SLACK_MS = 1000;
