// What a restore reports: the store's size by kind.
CALL () { MATCH (m:Message) RETURN count(m) AS messages }
CALL () { MATCH (u:User) RETURN count(u) AS users }
CALL () { MATCH (f:File) RETURN count(f) AS files }
CALL () { MATCH (e:Event) RETURN count(e) AS events }
RETURN messages, users, files, events
