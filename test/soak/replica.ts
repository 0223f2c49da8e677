// A device's copy of its account's notes built from the change feed only, as a client keeps one
// (docs/sync.md): from get-changes pages, or from a stream's events, each resumed from its last cursor.
import { performance } from 'node:perf_hooks'
import { type SseStream, openStream } from '../support/sse.js'
import { ANSWER_TIMEOUT_MS, type Answer, sidOf } from './http.js'
import type { NoteJson } from './model.js'

export interface Change {
  noteId: string
  note: NoteJson | null
}

export class Replica {
  readonly notes = new Map<string, NoteJson>()
  cursor: string | undefined

  apply(changes: Change[], cursor: string | undefined): void {
    for (const c of changes) {
      if (c.note) this.notes.set(c.noteId, c.note)
      else this.notes.delete(c.noteId)
    }
    if (cursor !== undefined) this.cursor = cursor
  }

  copyFrom(other: Replica): void {
    this.notes.clear()
    for (const [id, note] of other.notes) this.notes.set(id, note)
    this.cursor = other.cursor
  }

  /** How this replica differs from the listing, or undefined when it equals it. */
  differenceFrom(listing: NoteJson[]): string | undefined {
    const problems: string[] = []
    const listed = new Map(listing.map((n) => [n._id, n]))
    for (const [id, note] of listed) {
      const held = this.notes.get(id)
      if (!held) problems.push(`${id} missing`)
      else if (JSON.stringify(held) !== JSON.stringify(note))
        problems.push(`${id} holds ${held.updatedOn}, listed ${note.updatedOn}`)
    }
    for (const id of this.notes.keys()) if (!listed.has(id)) problems.push(`${id} is not listed`)
    return problems.length === 0 ? undefined : `${problems.length} difference(s): ${problems.slice(0, 3).join('; ')}`
  }
}

/** One stream the soak held: when it answered and when it was seen ending, for the bound on ending after a revocation. */
export interface StreamRecord {
  sid: string
  account: string
  answeredAt: number
  endedAt?: number
  how?: 'end' | 'error'
  stream: SseStream
  /** Events already applied to the device's live replica. */
  applied: number
}

/** Opens a stream from the replica's cursor; the stream's request as an Answer, and the stream when it opened. */
export async function openLive(
  base: string,
  token: string,
  replica: Replica,
): Promise<{ answer: Answer; stream?: SseStream }> {
  const sentAt = performance.now()
  try {
    const stream = await openStream(base, {
      token,
      answerTimeoutMs: ANSWER_TIMEOUT_MS,
      ...(replica.cursor !== undefined && { lastEventId: replica.cursor }),
    })
    const answeredAt = performance.now()
    if (stream.status !== 200) {
      await stream.ended
      const json =
        stream.body && typeof stream.body === 'object'
          ? (stream.body as Record<string, unknown>)
          : { message: typeof stream.body === 'string' ? stream.body : '' }
      return { answer: { status: stream.status, json, headers: stream.headers, sentAt, answeredAt } }
    }
    return { answer: { status: 200, json: {}, headers: stream.headers, sentAt, answeredAt }, stream }
  } catch (err) {
    const e = err as Error & { code?: string }
    const noAnswer = e.code === 'ECONNREFUSED' ? 'refused' : /no answer within/.test(e.message) ? 'timeout' : 'cut'
    return {
      answer: {
        status: 0,
        json: {},
        headers: {},
        sentAt,
        answeredAt: performance.now(),
        noAnswer,
        error: e.code ?? e.message,
      },
    }
  }
}

/** Applies the events a stream received since the last call to its device's live replica. */
export function takeEvents(record: StreamRecord, replica: Replica): void {
  const events = record.stream.events
  for (; record.applied < events.length; record.applied++) {
    const event = events[record.applied]!
    if (event.event !== 'change') continue
    replica.apply([JSON.parse(event.data) as Change], event.id)
  }
}

export const streamRecord = (account: string, token: string, answeredAt: number, stream: SseStream): StreamRecord => {
  const record: StreamRecord = { sid: sidOf(token), account, answeredAt, stream, applied: 0 }
  void stream.ended.then((how) => {
    record.endedAt = performance.now()
    record.how = how
  })
  return record
}
