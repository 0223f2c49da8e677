// The notes of the search benchmark (run.ts): one account's deterministic text of
// about 200–600 characters a note, with known shares of what the benchmark's patterns look for,
// so a search's result count is the same on every run and store. The base vocabulary holds no
// digit, no q and none of the looked-for words; only the features below bring them in.
import { newId } from '../../src/services/ids.js'
import { emptyInput } from '../../src/note-shape.js'
import type { NoteRecord } from '../../src/store/types.js'
import { random } from '../seed.js'

export interface SearchPattern {
  /** The query as sent to GET /search-notes. */
  query: string
  /** What the service's case-insensitive RE2 match is expected to agree with, for the corpus. */
  matches: RegExp
}

/** The benchmark's patterns, in report order. */
export const SEARCH_PATTERNS: readonly SearchPattern[] = [
  { query: 'meeting at 11am', matches: /meeting at 11am/iu },
  { query: 'meet(ing)? at 1[0-9] ?(am|pm)', matches: /meet(ing)? at 1[0-9] ?(am|pm)/iu },
  { query: 'grocery', matches: /grocery/iu },
  { query: 'q', matches: /q/iu },
  { query: '\\d+', matches: /\d+/u },
  { query: 'σίσυφος', matches: /σίσυφος/iu },
  { query: 'STRASSE|straße', matches: /STRASSE|straße/iu },
]

/** The pattern whose result count sets the size of the listing compared with its search. */
export const LISTING_PATTERN = 'grocery'

const WORDS = (
  'alpha budget call draft email family garden holiday idea journal kitchen ledger market notes ' +
  'office plan review school travel update visit weekend yoga zoom project invoice doctor birthday ' +
  'recipe book movie train flight hotel report meeting deadline team design with at for the and ' +
  'after before agenda summary follow up client lunch dinner parents weather paint window'
).split(' ')
const Q_WORDS = ['quarter', 'quick', 'request', 'question', 'unique', 'equipment', 'quote']

const pick = <T>(rnd: () => number, items: readonly T[]): T => items[Math.floor(rnd() * items.length)] as T
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

function sentence(rnd: () => number): string {
  const words = Array.from({ length: 5 + Math.floor(rnd() * 8) }, () => pick(rnd, WORDS))
  return `${capital(words.join(' '))}.`
}

const hour = (rnd: () => number) => 10 + Math.floor(rnd() * 10)
/**
 * Each feature: its share of notes and a sentence bringing it in. The meeting-time forms match
 * `meet(ing)? at 1[0-9] ?(am|pm)`; the near misses share its words but do not.
 */
const FEATURES: ReadonlyArray<[share: number, make: (rnd: () => number) => string]> = [
  [
    0.01,
    (rnd) =>
      `${pick(rnd, ['Meeting at 11am', 'meeting at 11am', 'MEETING AT 11AM', 'Meeting at 11AM'])} with the design team.`,
  ],
  [
    0.01,
    (rnd) =>
      `${pick(rnd, ['Meet', 'Meeting', 'meet', 'MEETING'])} at ${hour(rnd)}${pick(rnd, ['', ' '])}${pick(rnd, ['am', 'pm', 'PM'])} by the window.`,
  ],
  [
    0.03,
    (rnd) =>
      `${pick(rnd, ['Meeting at 9am', 'Meet at 2 pm', 'Meeting at noon', 'Meet at 20pm'])} if the weather holds.`,
  ],
  [
    0.08,
    (rnd) =>
      `${pick(rnd, ['Grocery list: milk, eggs, bread.', 'Stop by the grocery store.', 'GROCERY run after lunch.', 'Groceryland closes early.'])}`,
  ],
  [0.35, (rnd) => `${capital(pick(rnd, Q_WORDS))} for the ${pick(rnd, WORDS)} ${pick(rnd, Q_WORDS)}.`],
  [
    0.3,
    (rnd) =>
      `${pick(rnd, ['Invoice', 'Room', 'Call', 'Order'])} ${Math.floor(rnd() * 100_000)}, paid ${Math.floor(rnd() * 500)}.${Math.floor(rnd() * 90) + 10} EUR.`,
  ],
  [0.005, (rnd) => `${pick(rnd, ['Σίσυφος', 'ΣΊΣΥΦΟΣ', 'σίσυφος'])} and the stone again.`],
  [0.005, (rnd) => `Office in the ${pick(rnd, ['Hauptstraße', 'Bahnhofstraße', 'Lindenstraße'])} from Monday.`],
  [0.005, (rnd) => `Parcel to ${pick(rnd, ['GARTENSTRASSE', 'Gartenstrasse', 'MUSEUMSTRASSE'])} seven.`],
]

/** One note's title and content (the content about 200–600 characters). */
export function searchNoteText(rnd: () => number): { title: string; content: string } {
  const features = FEATURES.filter(([share]) => rnd() < share).map(([, make]) => make(rnd))
  const target = 200 + Math.floor(rnd() * 401)
  const sentences: string[] = []
  let length = features.reduce((sum, f) => sum + f.length + 1, 0)
  while (length < target) {
    const s = sentence(rnd)
    sentences.push(s)
    length += s.length + 1
  }
  for (const f of features) sentences.splice(Math.floor(rnd() * (sentences.length + 1)), 0, f)
  const title = capital(Array.from({ length: 2 + Math.floor(rnd() * 4) }, () => pick(rnd, WORDS)).join(' '))
  return { title, content: sentences.join(' ') }
}

const EPOCH = Date.parse('2026-01-01T00:00:00.000Z')

/** `count` notes of one account, oldest first, one minute apart; every 50th pinned. */
export function* makeSearchNotes(userId: string, count: number, seed = 11): Generator<NoteRecord, void, undefined> {
  const rnd = random(seed)
  for (let i = 0; i < count; i++) {
    const at = new Date(EPOCH + i * 60_000).toISOString()
    yield {
      _id: newId(),
      ...emptyInput(),
      userId,
      ...searchNoteText(rnd),
      tags: [],
      isPinned: i % 50 === 0,
      createdOn: at,
      updatedOn: at,
    }
  }
}
