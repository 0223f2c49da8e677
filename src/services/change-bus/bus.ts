// The change bus: after a write commits, the instance that made it tells every instance (its own first) whose notes or
// sessions changed, so that live update streams (services/streams.ts) read the feed or check their session at once
// rather than at the version watch's next read (services/version-watch.ts). A notice says "look again", never what
// changed: a lost one costs latency, not correctness. This file is the bus's interface and its text; the drivers beside
// it, and how one is chosen: docs/sync.md, "The change bus".

/** What changed for an account: its notes (a stream reads the feed) or its sessions (a stream checks its own). */
export type ChangeKind = 'notes' | 'sessions'

export interface ChangeEvent {
  kind: ChangeKind
  userId: string
  /** When the write's instance published it, in ms since the epoch: the start of the fan-out lag. */
  publishedAt: number
}

export interface BusListener {
  change(event: ChangeEvent): void
  /** Notices may have been lost (a driver reconnected): every stream reads the feed again. */
  resync(): void
}

export interface ChangeBus {
  /** Delivers to this process's listeners at once and to the other processes through the driver; never throws. */
  publish(event: ChangeEvent): void
  /** The returned function unsubscribes. */
  subscribe(listener: BusListener): () => void
  /** Stops delivering; a publish after it reaches nobody. */
  close(): Promise<void>
  /** The driver's name, for the start-up log line and the docs: in-process, cluster, postgresql or redis. */
  readonly driver: string
}

/** What a transport tells its bus. */
export interface TransportEvents {
  receive(text: string): void
  /** Receiving works (again): notices sent while it did not were missed. */
  live(): void
  /** Receiving stopped; the transport reconnects by itself. */
  lost(reason: string): void
}

/** What a driver moves between processes: texts of events, and word of its connection. */
export interface BusTransport {
  /** Rejects when the text could not be handed over (the bus logs it and moves on). */
  send(text: string): Promise<void>
  /** Starts receiving; resolves once listening or once a first attempt failed (the transport retries). */
  start(events: TransportEvents): Promise<void>
  close(): Promise<void>
}

/** Where the bus reports a failed publish or a lost driver: a pino logger fits. */
export type BusLog = Record<'info' | 'warn', (obj: object, msg: string) => void>

const KINDS: Record<string, ChangeKind> = { n: 'notes', s: 'sessions' }

/**
 * How many events one text carries at most: about 60 bytes each, so a text stays well under PostgreSQL's 8000-byte
 * NOTIFY payload.
 */
export const EVENTS_PER_TEXT = 64

/** One text for one or more events of one process: one event's fields, or a list of them. */
export function encodeEvents(events: readonly ChangeEvent[], origin: string): string {
  const fields = events.map((event) => [event.kind === 'notes' ? 'n' : 's', event.userId, event.publishedAt, origin])
  return JSON.stringify(fields.length === 1 ? fields[0] : fields)
}

/** The events and their origin, or undefined for a text this build did not write (another version during an upgrade). */
export function decodeEvents(text: string): { events: ChangeEvent[]; origin: string } | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!Array.isArray(parsed)) return undefined
  const list: unknown[] = parsed.every(Array.isArray) ? parsed : [parsed]
  const decoded = list.map(decodeOne)
  const origin = decoded[0]?.origin
  if (origin === undefined || decoded.some((d) => d === undefined || d.origin !== origin)) return undefined
  return { events: decoded.map((d) => d!.event), origin }
}

function decodeOne(fields: unknown): { event: ChangeEvent; origin: string } | undefined {
  if (!Array.isArray(fields) || fields.length < 4) return undefined
  const [k, userId, publishedAt, origin] = fields as unknown[]
  const kind = typeof k === 'string' ? KINDS[k] : undefined
  if (!kind || typeof userId !== 'string' || typeof publishedAt !== 'number' || typeof origin !== 'string')
    return undefined
  return { event: { kind, userId, publishedAt }, origin }
}
