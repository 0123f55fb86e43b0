// THE rule for when a credential __m (an ApiKey, or a Session) was ended by revocation, used as
// {{lineage_revoked_at(k)}}: the earliest `revoked_at` of it and of the keys it was minted with,
// following MINTED_WITH (a key made with a key points to that parent key) up the chain; null while
// none of them is revoked. So revoking a key ends every key minted with it at once, and the sessions
// exchanged from those keys, without a write to each (docs/decisions/024). A DateTime: the
// credential reads take `.epochMillis` of it, as of every other time they read.
COLLECT {
  MATCH (__m)-[:MINTED_WITH*0..]->(__minter)
  WHERE __minter.revoked_at IS NOT NULL
  RETURN __minter.revoked_at AS __ended
  ORDER BY __ended
  LIMIT 1
}[0]
