// The change feed as the app reads it: GET /get-changes page by page (docs/sync.md), and
// GET /stream-changes read with fetch(), so that the token goes in the Authorization header and
// never in a URL (EventSource cannot send headers). Each event's id is the cursor just after it,
// sent back as Last-Event-ID when the stream is opened again.
import { createParser } from 'eventsource-parser'
import type * as Api from '../api'
import type { Note } from '../api'

/**
 * The API client, handed in by the page rather than imported, so that the bundler keeps it in the
 * first download's chunk instead of splitting it into one more file the page must fetch.
 */
export type Client = Pick<typeof Api, 'api' | 'answerOf'>

/** The HTTP status an API error carries (ApiError and its kinds), if any. */
export function statusOf(err: unknown): number | undefined {
  const status = err instanceof Error ? (err as { status?: unknown }).status : undefined
  return typeof status === 'number' ? status : undefined
}

export interface FeedChange {
  noteId: string
  note: Note | null
}

/** A 410: the cursor can no longer be served; list everything again. */
export class CursorExpired extends Error {}

const PAGE = 500

function headers(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { accept: 'application/json', authorization: `Bearer ${token}`, ...extra }
}

async function page(
  client: Client,
  token: string,
  since: string | undefined,
  signal: AbortSignal,
): Promise<{ changes: FeedChange[]; cursor: string; more: boolean }> {
  const query = since === undefined ? `limit=${PAGE}` : `since=${encodeURIComponent(since)}&limit=${PAGE}`
  try {
    return await client.answerOf(fetch(`/get-changes?${query}`, { headers: headers(token), signal }), signal)
  } catch (err) {
    if (statusOf(err) === 410) throw new CursorExpired()
    throw err
  }
}

/** Every change after `since`, all pages of them; throws CursorExpired for an unusable cursor. */
export async function changesSince(
  client: Client,
  token: string,
  since: string,
  signal: AbortSignal,
): Promise<{ changes: FeedChange[]; cursor: string }> {
  const changes: FeedChange[] = []
  let cursor = since
  for (;;) {
    const answer = await page(client, token, cursor, signal)
    changes.push(...answer.changes)
    cursor = answer.cursor
    if (!answer.more) return { changes, cursor }
  }
}

/** Every note the account lists, and the cursor they are current to. */
export async function listAll(
  client: Client,
  token: string,
  signal: AbortSignal,
): Promise<{ notes: Map<string, Note>; cursor: string }> {
  const notes = new Map<string, Note>()
  let answer = await page(client, token, undefined, signal)
  for (;;) {
    for (const { noteId, note } of answer.changes) void (note ? notes.set(noteId, note) : notes.delete(noteId))
    if (!answer.more) return { notes, cursor: answer.cursor }
    answer = await page(client, token, answer.cursor, signal)
  }
}

/** Why a stream ended, for the reconnection's wait. */
export class StreamRefused extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message)
  }
}

/**
 * Holds GET /stream-changes from `cursor` until it ends, calling `onChange` for each event with
 * the cursor after it. Resolves when the server ends the stream; rejects with the API's errors
 * (401 SessionEndedError, 410 CursorExpired, 429/503 StreamRefused) or a network failure.
 */
export async function holdStream(
  client: Client,
  token: string,
  cursor: string,
  onChange: (change: FeedChange, cursor: string) => void,
  signal: AbortSignal,
  onRetry: (ms: number) => void = () => undefined,
): Promise<void> {
  const response = await fetch('/stream-changes', {
    headers: headers(token, { accept: 'text/event-stream', 'last-event-id': cursor }),
    signal,
    cache: 'no-store',
  })
  if (!response.ok || !response.body) {
    const retryAfter = Number(response.headers.get('retry-after'))
    try {
      await client.answerOf(Promise.resolve(response), signal)
    } catch (err) {
      const status = statusOf(err)
      if (status === 410) throw new CursorExpired()
      if (status !== undefined && status !== 401)
        throw new StreamRefused(
          (err as Error).message,
          status,
          Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
        )
      throw err
    }
    throw new StreamRefused(`The server answered ${response.status}`, response.status, undefined)
  }
  const parser = createParser({
    onRetry,
    onEvent(event) {
      if (event.event !== 'change' || !event.id) return
      onChange(JSON.parse(event.data) as FeedChange, event.id)
    },
  })
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return
    parser.feed(value)
  }
}
