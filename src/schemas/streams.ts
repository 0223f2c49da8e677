// GET /stream-changes (docs/sync.md, "Live updates"): the query, the answers, their errors and the OpenAPI operation.
import { Type } from '@sinclair/typebox'
import { CURSOR_EXPIRED, DATABASE_UNREACHABLE } from '../errors.js'
import { TOO_MANY_FOR_ACCOUNT, TOO_MANY_FOR_INSTANCE } from '../services/streams.js'
import { Unauthorized, errorBody } from './error-responses.js'
import { operationsOf } from './operations.js'

const StreamQuery = Type.Object({
  since: Type.Optional(
    Type.String({ description: 'A cursor of /get-changes or an event id; Last-Event-ID wins when both are sent.' }),
  ),
})

const retryAfter = { 'retry-after': { type: 'string', description: 'Seconds to wait before opening a stream again.' } }

export const streamChanges = {
  ...operationsOf('notes', true)(
    'streamChanges',
    'Live updates of the change feed',
    'Server-sent events: each change after the cursor (since, or the Last-Event-ID header), then each new one as it ' +
      'commits, as "id: <cursor>", "event: change", "data: {noteId, note}" (note null when the note left the listing). ' +
      'Without a cursor the stream starts at the feed as it is when the stream opens. ": keep-alive" comments come ' +
      'every STREAM_HEARTBEAT_MS. The stream ends when the session does, when the reader falls STREAM_BUFFER_BYTES ' +
      'behind, or when the server shuts down: reconnect with Last-Event-ID. The token goes in the Authorization header only.',
  ),
  querystring: StreamQuery,
  response: {
    200: {
      description: 'The event stream (text/event-stream), open until the client, the session or the server ends it.',
      content: { 'text/event-stream': { schema: Type.String() } },
    },
    400: errorBody('since is sent more than once.'),
    401: Unauthorized,
    410: errorBody(
      'The cursor is too old, from another account or another database, past the feed, or not a cursor: list all notes again (/get-changes without since).',
      [CURSOR_EXPIRED],
    ),
    429: errorBody(
      `The account holds STREAMS_PER_ACCOUNT streams on this server already.`,
      [TOO_MANY_FOR_ACCOUNT],
      retryAfter,
    ),
    500: errorBody('An unexpected failure inside the service.', ['Internal Server Error']),
    503: errorBody(
      'This server holds STREAMS_PER_INSTANCE streams already or is shutting down (sent with Retry-After), or the database cannot be reached.',
      [TOO_MANY_FOR_INSTANCE, DATABASE_UNREACHABLE],
    ),
  },
}
