// Whether a restore's target holds anything: an empty database answers 0.
MATCH (n) RETURN count(n) AS nodes
