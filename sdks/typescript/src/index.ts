// Skein's TypeScript SDK: the REST client, the notification socket and webhook verification.
export {
  MessageRejected,
  SkeinClient,
  SkeinError,
  type BookmarkState,
  type ClientOptions,
  type Credentials,
  type MessageCreateResult,
  type MessageInput,
  type MessageOutput,
  type NotificationPage,
  type PaginatedMessages,
  type Schemas,
  type TokenResponse,
  type UserOutput,
} from './client.js';
export {
  SkeinSocket,
  type NotificationFrame,
  type ReadyFrame,
  type SocketEvent,
  type SocketOptions,
} from './socket.js';
export {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookHeaders,
} from './webhooks.js';
export type { components, paths, operations } from './generated/openapi.js';
