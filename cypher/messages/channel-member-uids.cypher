// The members of the channels a post was written into: with its author and recipients, everyone who
// may see its messages (when none is public), whose cached answers the post must end. At most
// $limit: past that the post ends every cached answer, and reading the rest would be wasted.
UNWIND $channel_ids AS wanted
MATCH (:Channel {id: wanted})-[:HAS_MEMBER]->(u:User)
WITH DISTINCT u.uid AS uid
LIMIT toInteger($limit)
RETURN uid
