// The bot a chat completion names by its tag (the id GET /v1/models lists), and whether it can answer:
// not deactivated, and holding messages.read (to read what it is sent) and messages.write (to reply)
// by the one grant rule ({{principal}}: a ban of the bot or of all its managers empties it). The model
// list shows every bot that holds messages.read, as user search does (models/list-bots), so a listed
// bot that may not write answers 404 with a detail saying so. `deactivated` only words the refusal.
// No row when no bot has the tag (a person's tag is no model).
MATCH (b:User {tag_folded: $tag_folded})
WHERE b.is_bot = true AND b.deleted_at IS NULL
RETURN b.uid AS uid, b.user_tag AS user_tag, coalesce(b.bot_versions, []) AS versions,
       b.deactivated_at IS NOT NULL AS deactivated,
       (b.deactivated_at IS NULL
        AND all(needed IN ['messages.read', 'messages.write'] WHERE needed IN ({{principal(b)}}).scopes)) AS answers
