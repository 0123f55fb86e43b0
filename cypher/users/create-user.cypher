// A new account. The uid and case-folded tag constraints make a clash fail the whole transaction;
// the repository retries a uid clash and reports a tag clash as 409. A managed user is linked to
// the manager that creates it; an email given at registration is kept as an unverified contact.
CREATE (u:User {
  uid: $uid, user_tag: $user_tag, tag_folded: toLower($user_tag), display_name: $display_name, bio: null,
  is_managed: $is_managed, is_bot: $is_bot, has_api_access: $has_api_access, scopes: $scopes,
  password_hash: $password_hash, created_at: datetime($now),
  bot_modalities: $bot.modalities, bot_integrations: $bot.integrations, bot_versions: $bot.versions,
  context_origin_id: $bot.context_origin_id
})
WITH u
OPTIONAL MATCH (manager:User {uid: $manager_uid})
FOREACH (_ IN CASE WHEN manager IS NULL THEN [] ELSE [1] END | CREATE (manager)-[:MANAGES {since: datetime($now)}]->(u))
FOREACH (_ IN CASE WHEN $email IS NULL THEN [] ELSE [1] END |
  CREATE (u)-[:HAS_CONTACT]->(:Contact {kind: 'email', value: $email, verified_at: null, created_at: datetime($now)}))
RETURN u {.*} AS user
