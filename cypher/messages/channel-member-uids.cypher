// The members of the channels a post was written into: with its author and recipients, everyone who
// may see its messages (when none is public), whose cached answers the post must end.
UNWIND $channel_ids AS wanted
MATCH (:Channel {id: wanted})-[:HAS_MEMBER]->(u:User)
RETURN DISTINCT u.uid AS uid
