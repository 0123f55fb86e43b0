// The writer's side of a streamed reply: POST /v1/streams/{id}/chunks (appendStream) adds chunk
// `seq` (1, 2, 3…; the last one again with the same text answers the same), POST
// /v1/streams/{id}/finish (finishStream) posts the chunks joined as one ordinary message through
// postMessages (its events, webhooks, unread counts, search), keyed `stream:<id>` so that a retry
// makes no second one. Nobody but the writer's account writes: others get 404 outside the
// audience, 403 not_author inside it.
import type { Caller } from '../../platform/auth/caller.js';
import { assertScope } from '../../platform/auth/scopes.js';
import type { AppContext } from '../../platform/context.js';
import { AppError, validationError, type ErrorCode } from '../../platform/errors.js';
import { postMessages } from '../messages/post-messages.js';
import { MAX_CONTENT_CHARS, type MessageOutput } from '../messages/messages.schemas.js';
import { readMessage } from '../messages/read-message.js';
import type { ChunkInput, FinishInput, StreamOutput } from './live.schemas.js';
import { readableStream, streamNotFound, streamView } from './read-streams.js';
import type { StreamEnd, StreamSnapshot } from './stream-store.js';

export async function appendChunk(
  ctx: AppContext,
  caller: Caller,
  streamId: string,
  input: ChunkInput,
): Promise<{ stream_id: string; seq: number; length: number }> {
  assertScope(caller, 'messages.write');
  const answer = await ctx.live.store.append(streamId, caller.uid, input.seq, input.text, Date.now(), {
    maxChars: MAX_CONTENT_CHARS,
    idleMs: ctx.config.streams.idleMs,
  });
  if (answer.ok) return { stream_id: streamId, seq: answer.seq, length: answer.length };
  switch (answer.reason) {
    case 'not_found':
      throw streamNotFound();
    case 'not_writer':
      throw await notWriter(ctx, caller, streamId);
    case 'stopped':
      throw new AppError(
        'stream_stopped',
        'A reader stopped this stream: finish it with what you have written.',
      );
    case 'ended':
      throw new AppError('stream_ended', 'This stream has ended.');
    case 'seq_conflict':
      throw new AppError(
        'stream_seq_conflict',
        `Chunk ${input.seq} is not the next: ${answer.seq} chunks are written, so the next seq is ${answer.seq + 1}.`,
      );
    case 'too_long':
      throw validationError([
        {
          loc: ['body', 'text'],
          msg: `a stream holds at most ${MAX_CONTENT_CHARS} characters, as a message does; finish it`,
          type: 'value_error',
        },
      ]);
  }
}

export async function finishStream(
  ctx: AppContext,
  caller: Caller,
  streamId: string,
  input: FinishInput,
): Promise<{ stream: StreamOutput; message: MessageOutput | null }> {
  assertScope(caller, 'messages.write');
  const store = ctx.live.store;
  const before = await store.snapshot(streamId);
  if (!before) throw streamNotFound();
  if (before.info.writer.uid !== caller.uid) throw await notWriter(ctx, caller, streamId);
  if (before.status.state === 'ended' || before.status.state === 'finishing') {
    // A retry of a finish that went through answers the same.
    if (before.status.message_id !== null && before.status.seq === input.last_seq)
      return answer(ctx, caller, before);
    throw endedError(before);
  }
  if (input.last_seq !== before.status.seq) {
    throw new AppError(
      'stream_seq_conflict',
      `${before.status.seq} chunks are written, not ${input.last_seq}: finish with last_seq ${before.status.seq}.`,
    );
  }
  // From here no append gets in: the text is exactly what the snapshot after the move holds.
  if (!(await store.transition(streamId, ['open', 'stopping'], 'finishing', {}, Date.now())))
    throw endedError((await store.snapshot(streamId)) ?? before);
  const snapshot = (await store.snapshot(streamId)) ?? before;
  if (snapshot.text.length === 0) return end(ctx, caller, snapshot, 'abandoned', null);
  const { stop } = snapshot.status;
  const how: Exclude<StreamEnd, 'abandoned'> = stop
    ? 'stopped'
    : input.incomplete
      ? 'incomplete'
      : 'finished';
  // The message keeps how it ended; a BCC recipient's stop is not shown on it (read-streams.ts).
  const mark = {
    id: streamId,
    ended: how,
    stopped_by: stop && !snapshot.info.bcc_uids.includes(stop.by.uid) ? stop.by : null,
  };
  let results;
  try {
    results = await postMessages(
      ctx,
      caller,
      [{ ...snapshot.info.input, content: snapshot.text }],
      `stream:${streamId}`,
      'post',
      'body',
      { stream: mark },
    );
  } catch (error) {
    await end(ctx, caller, snapshot, 'abandoned', null);
    throw error;
  }
  const [result] = results;
  if (!result?.ok) {
    // What the post refused (its parent deleted, the writer removed from a channel): no message.
    await end(ctx, caller, snapshot, 'abandoned', null);
    const error =
      result && !result.ok ? result.error : { code: 'internal_error', detail: 'The post answered nothing.' };
    throw new AppError(error.code as ErrorCode, error.detail);
  }
  return end(ctx, caller, snapshot, how, result.message.id);
}

/** Ends the stream (finishing → ended), tells its readers, and answers the finish. */
async function end(
  ctx: AppContext,
  caller: Caller,
  snapshot: StreamSnapshot,
  how: StreamEnd,
  messageId: string | null,
): Promise<{ stream: StreamOutput; message: MessageOutput | null }> {
  const id = snapshot.info.stream_id;
  const status = await ctx.live.store.transition(
    id,
    ['finishing'],
    'ended',
    { ended: how, message_id: messageId },
    Date.now(),
  );
  if (status)
    await ctx.live.publish({
      k: 'stream_ended',
      stream_id: id,
      ended: how,
      message_id: messageId,
      seq: status.seq,
    });
  return answer(ctx, caller, { ...snapshot, status: status ?? snapshot.status });
}

async function answer(
  ctx: AppContext,
  caller: Caller,
  snapshot: StreamSnapshot,
): Promise<{ stream: StreamOutput; message: MessageOutput | null }> {
  const messageId = snapshot.status.message_id;
  const message = messageId === null ? null : await readMessage(ctx, caller, messageId).catch(() => null);
  return { stream: streamView(snapshot, caller.uid, new Set(snapshot.info.channel_ids)), message };
}

function endedError(snapshot: StreamSnapshot): AppError {
  const { ended, message_id } = snapshot.status;
  const how = ended === null ? 'is being finished' : `ended ${ended}`;
  return new AppError(
    'stream_ended',
    `This stream ${how}${message_id === null ? '' : `; its message is ${message_id}`}.`,
  );
}

/** 403 not_author for a reader of the stream, 404 for anyone else. */
async function notWriter(ctx: AppContext, caller: Caller, streamId: string): Promise<AppError> {
  await readableStream(ctx, caller, streamId);
  return new AppError('not_author', "Only the stream's writer writes to it.");
}
