// A user's notes as records, for tests that call a store directly: the Store answers listings and
// searches only as the JSON text the endpoints send (Store.listNotesJson, searchNotesJson).
import type { NoteRecord, Store, TextMatcher } from '../../src/store/types.js'

/** store.listNotesJson, parsed. */
export const listedNotes = async (store: Pick<Store, 'listNotesJson'>, userId: string): Promise<NoteRecord[]> =>
  JSON.parse((await store.listNotesJson(userId)).toString()) as NoteRecord[]

/** store.searchNotesJson, parsed. */
export const searchedNotes = async (
  store: Pick<Store, 'searchNotesJson'>,
  userId: string,
  matcher: TextMatcher,
): Promise<NoteRecord[]> => JSON.parse(await store.searchNotesJson(userId, matcher)) as NoteRecord[]
