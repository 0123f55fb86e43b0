MATCH (u:User {tag_folded: $tag_folded})
RETURN u {.*} AS user
