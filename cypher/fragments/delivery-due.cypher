// THE rule for a webhook delivery __m that a dispatcher may take now, used as {{delivery_due(d)}}
// by the poll's look (find-work.cypher) and by the claim (lock-due.cypher, then claim-locked.cypher
// again under the lock): pending, its time has come, and nobody holds a lease on it (or the
// holder's lease ran out). $only_uids is null for a service; tests that share one database narrow a
// dispatcher to their users.
(__m.state = 'pending' AND __m.next_attempt_at <= datetime()
 AND (__m.lease_until IS NULL OR __m.lease_until <= datetime())
 AND ($only_uids IS NULL OR __m.uid IN $only_uids))
