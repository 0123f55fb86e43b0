// Every relationship, naming its ends by the ids export-nodes gave them. Read after the nodes: a
// relationship made since then may end at a node the archive lacks, and the restore leaves it out.
MATCH (a)-[r]->(b)
RETURN id(a) AS from, type(r) AS type, id(b) AS to, properties(r) AS props
