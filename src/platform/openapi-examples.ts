// Realistic request examples for the OpenAPI document, one per operation that takes a body, keyed by
// "method path" as the document spells it. Kept apart from the zod schemas so that an example never
// changes validation; Redocly's no-invalid-media-type-examples rule checks each one against its
// schema (test/platform/openapi-document.int.test.ts).

const EXAMPLES: Record<string, unknown> = {
  'post /v1/auth/register': {
    user_tag: 'ada',
    password: 'correct horse battery staple',
    email: 'ada@example.com',
    display_name: 'Ada Lovelace',
  },
  'post /v1/auth/password/login': { user_tag: 'ada', password: 'correct horse battery staple' },
  'post /v1/auth/password/change': {
    current_password: 'correct horse battery staple',
    new_password: 'a longer passphrase 2026',
  },
  'post /v1/auth/password/reset/request': { email: 'ada@example.com' },
  'post /v1/auth/password/reset': {
    email: 'ada@example.com',
    code: '042917',
    new_password: 'a longer passphrase 2026',
  },
  'post /v1/auth/email-code/request': { email: 'ada@example.com' },
  'post /v1/auth/email-code/login': { email: 'ada@example.com', code: '042917', device_id: 'ada-laptop' },
  'post /v1/auth/token': { requested_permissions: 'messages.read messages.write realtime.connect' },
  'post /v1/auth/keys/self': {
    label: 'echo bot',
    scopes_cap: 'messages.read messages.write realtime.connect',
  },
  'post /v1/auth/sessions/refresh': {},
  'post /v1/managed/auth/delegate': { managed_uid: '3f9a1c02' },
  'post /v1/users/profile': { display_name: 'Ada Lovelace', bio: 'Writes the first programs.' },
  'post /v1/managed/users': {
    user_tag: 'echobot',
    display_name: 'Echo bot',
    is_bot: true,
    bot: { modalities: ['text'], integrations: ['webhook'] },
  },
  'patch /v1/managed/users/{uid}': {
    display_name: 'Echo bot 2',
    bot: { versions: ['2026-11'], context_origin_id: null },
  },
  'post /v1/managed/users/{uid}/managers': { user_tag: 'grace' },
  'patch /v1/admin/users/{uid}': {
    scopes: ['messages.read', 'messages.write', 'realtime.connect', 'channels.create'],
    has_api_access: true,
  },
  'post /v1/messages': {
    content: 'Lunch at noon? @bob',
    recipients: ['bob', { user_tag: 'carol', public: false }],
    tags: ['lunch'],
    subject: 'Lunch',
  },
  'post /v1/messages/import/quote': {
    content: 'We ship on Friday.',
    recipients: ['bob'],
    import_info: {
      source: 'slack',
      author_name: 'Grace Hopper',
      url: 'https://example.slack.com/archives/C01/p1700000000',
      original_timestamp: '2026-11-20T09:30:00.000Z',
    },
  },
  'post /v1/typing': { message_id: 'e7c55a1b', status: 'searching the docs…' },
  'post /v1/streams': { parent_id: 'e7c55a1b', audience: 'parent', content: 'Graphs are ' },
  'post /v1/streams/{stream_id}/chunks': { seq: 2, text: 'nodes joined by edges.' },
  'post /v1/streams/{stream_id}/finish': { last_seq: 2 },
  'post /v1/chat/completions': {
    model: 'echobot',
    messages: [
      { role: 'system', content: 'Answer in one line.' },
      { role: 'user', content: 'What is a thread?' },
    ],
    stream: false,
  },
  'delete /v1/messages/batch': { message_ids: ['e7c55a1b', '8d8d0a03'], delete_descendants: false },
  'patch /v1/messages/{message_id}/public': { public: true },
  'patch /v1/messages/public/batch': { message_ids: ['e7c55a1b', '8d8d0a03'], public: true },
  'patch /v1/messages/{message_id}/subject': { subject: 'Release plan' },
  'patch /v1/messages/{message_id}/content': { content: 'Lunch at half past twelve instead?' },
  'patch /v1/messages/{message_id}/tags': { tags: ['release', 'q4'] },
  'patch /v1/messages/tags/batch': { message_ids: ['e7c55a1b', '8d8d0a03'], tags: ['release'] },
  'patch /v1/messages/{message_id}/reply_order': { reply_order: ['8d8d0a03', 'a9f8e72b'] },
  'patch /v1/messages/{message_id}/default_outgoing': { default_outgoing: '8d8d0a03' },
  'post /v1/messages/{message_id}/read': { read: true },
  'post /v1/messages/{message_id}/ping': { recipients: ['bob'] },
  'post /v1/recipients/add': {
    message_id: 'e7c55a1b',
    recipients: ['bob', { user_tag: 'carol', public: false }],
  },
  'delete /v1/recipients/remove': { recipient_uid: '0551625a', message_id: 'e7c55a1b' },
  'post /v1/channels': { display_name: 'general', description: 'Everything and nothing.' },
  'patch /v1/channels/{channel_id}': { description: 'Release coordination.' },
  'post /v1/channels/{channel_id}/members': { user_tag: 'bob', is_admin: false },
  'patch /v1/messages/{message_id}/channels': { channel_ids: ['c0ffee01'] },
  'post /v1/auth/contacts/email/request': { email: 'ada@example.com' },
  'post /v1/auth/contacts/email/verify': { email: 'ada@example.com', code: '042917' },
  'post /v1/auth/contacts/phone/request': { phone: '+14155552671' },
  'post /v1/auth/contacts/phone/verify': { phone: '+14155552671', code: '042917' },
  'post /v1/auth/contacts/endpoint/request': { url: 'https://bot.example.com/hook' },
  'post /v1/auth/contacts/endpoint/verify': { url: 'https://bot.example.com/hook' },
  'post /v1/managed/users/{uid}/endpoint/secret/rotate': { overlap_seconds: 86400 },
  'patch /v1/managed/users/{uid}/endpoint': { include_context: true },
};

/** The example request body of an operation, or undefined (multipart uploads have none). */
export function requestExample(method: string, path: string): unknown {
  return EXAMPLES[`${method} ${path}`];
}
