// THE grant of an account as a credential sees it, used by find-session and find-api-key through
// {{principal(<user var>)}}: the user's own scopes and API access, except that a managed user (a bot)
// holds only the scopes one of its managers holds now, and has API access only while one of its
// managers has it (security finding #4: restricting a manager restricts its bots at once). Only
// managers who agreed to manage it count, and a MANAGES edge is exactly that: its creator's, made
// with it, or an invited user's, made when it accepted (users/accept-invitation); a pending
// invitation is another relationship and lends nothing (second review finding #3, decision 023). A
// managed user its manager deactivated (or deleted) is not `active` and holds nothing: its keys and
// sessions fail with 401 (sessions.ts), and user search leaves it out as it leaves out a ban.
__m {.uid, .user_tag, .is_managed,
  active: __m.deactivated_at IS NULL,
  scopes: CASE WHEN __m.deactivated_at IS NOT NULL THEN []
               WHEN coalesce(__m.is_managed, false)
               THEN [__scope IN __m.scopes WHERE EXISTS { MATCH (__grantor:User)-[:MANAGES]->(__m) WHERE __scope IN __grantor.scopes }]
               ELSE __m.scopes END,
  has_api_access: CASE WHEN __m.deactivated_at IS NOT NULL THEN false
                       WHEN coalesce(__m.is_managed, false)
                       THEN __m.has_api_access AND EXISTS { MATCH (__grantor:User)-[:MANAGES]->(__m) WHERE __grantor.has_api_access }
                       ELSE __m.has_api_access END}
