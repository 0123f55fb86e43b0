// Skein's TypeScript SDK: the REST client, the notification socket, webhook verification, and the
// bot run loop built on them.
export {
  BotRefusedError,
  runBot,
  SkeinBot,
  type BotEventType,
  type BotLogger,
  type BotMessage,
  type BotOptions,
  type EventMessage,
  type MessageContext,
  type MessageHandler,
} from './bot.js';
export {
  MessageRejected,
  SkeinClient,
  SkeinError,
  type BookmarkState,
  type ClientOptions,
  type ContextEntry,
  type ConversationContext,
  type Credentials,
  type Delivery,
  type EndpointOptions,
  type ErrorBody,
  type ManagedUserUpdate,
  type MessageCreateResult,
  type MessageEdits,
  type MessageInput,
  type MessageOutput,
  type NotificationPage,
  type Page,
  type PaginatedMessages,
  type RotatedSecret,
  type Schemas,
  type ThreadRead,
  type TokenResponse,
  type UnreadCounts,
  type UserOutput,
} from './client.js';
export {
  keepTyping,
  streamReply,
  type Stream,
  type StreamedReply,
  type StreamReplyOptions,
  type TextSource,
  type Typing,
  type TypingOptions,
} from './live-reply.js';
export {
  FINAL_CLOSE_CODES,
  SkeinSocket,
  SocketRefusedError,
  StreamView,
  type LiveFrame,
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
export type { WebhookRequestListener } from './webhook-listener.js';
export type { components, paths, operations } from './generated/openapi.js';
