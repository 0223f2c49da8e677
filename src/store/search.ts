// The Store's search section (docs/search.md). Each driver implements it in its search.ts.
import type { SearchPlan } from './search-trigrams.js'
import type { NoteRecord } from '../note-shape.js'

/** What search tests of a note: its title and its content, each on its own. */
export type SearchText = Pick<NoteRecord, 'title' | 'content'>

/** A search pattern as the store sees it: it reads the candidates in list order, a chunk at a time (search-chunks.ts). */
export interface TextMatcher {
  /** The ascending indexes of the matching notes; rejects with the error that answers the request. */
  matchPage(notes: readonly SearchText[]): Promise<number[]>
  /** What every match holds (services/search-plan.ts): notes the index does not name may be left out. */
  readonly plan?: SearchPlan
  /** What is left of the search's budget, in ms; throws the answer of a search past it (the 400). */
  timeLeft(): number
  /** Throws the answer of a search past its budget: for a store that ended a statement at timeLeft(). */
  outOfTime(): never
}

/** What Store.buildSearchIndex found: nothing to build, a build done, one under way elsewhere, or no index possible (why). */
export type SearchIndexBuilt = 'ready' | 'built' | 'elsewhere' | { unavailable: string }

export interface SearchStore {
  /** The user's notes whose title or content the matcher accepts, in listNotesJson's order, as JSON text like it: what GET /search-notes sends. */
  searchNotesJson(userId: string, matcher: TextMatcher): Promise<string>
  /**
   * Builds search's index for the notes stored before it (docs/search.md, "Building the index"), calling `progress`
   * with the share done; search reads every note until it is complete. Resumes a build another process stopped.
   */
  buildSearchIndex(progress: (fraction: number) => void): Promise<SearchIndexBuilt>
}
