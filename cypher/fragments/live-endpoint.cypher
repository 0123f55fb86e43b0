// THE rule for an endpoint contact __m that webhook deliveries may go to, used as
// {{live_endpoint(c)}}: verified, and not turned off (by a 410 answer, disable-endpoint.cypher).
(__m.verified_at IS NOT NULL AND __m.disabled_at IS NULL)
