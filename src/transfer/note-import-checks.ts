// The API's limits on a note, held to an imported one before anything of it is written: an item past them is
// skipped with its reason, never cut to fit (docs/migration.md, "Bad input").
import { attachmentUrl } from '../attachment-shape.js'
import type { ImportedNote } from './formats/items.js'
import { LIMITS } from '../note-shape.js'
import { storedName } from '../services/attachment-files.js'

/** The note's tags as stored: trimmed, without empty ones and repeats, in their first order. */
export function importedTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((tag) => tag.trim()).filter((tag) => tag !== ''))]
}

/** The length of the note's content once each file's ref is its attachment's URL (a skipped file's name is shorter). */
function finalLength(item: ImportedNote): number {
  let length = item.content.length
  for (const file of item.files) {
    const uses = item.content.split(file.ref).length - 1
    const url = attachmentUrl({ _id: '0'.repeat(24), name: storedName(file.name) })
    length += uses * (Math.max(url.length, file.name.length) - file.ref.length)
  }
  return length
}

const isDate = (value: string | undefined) => value === undefined || Number.isFinite(Date.parse(value))

/** Why the note cannot be imported as it is, or undefined. */
export function checkImportedNote(item: ImportedNote): string | undefined {
  const texts = [item.title, item.content, ...item.tags]
  if (!texts.every((text) => text.isWellFormed())) return 'its text holds invalid Unicode (a lone surrogate)'
  if (item.title.length > LIMITS.title)
    return `its title is ${item.title.length} characters long; a title holds at most ${LIMITS.title}`
  const length = finalLength(item)
  if (length > LIMITS.content)
    return `its text is ${length} characters long with its files' links; a note holds at most ${LIMITS.content}`
  const tags = importedTags(item.tags)
  if (tags.length > LIMITS.tags) return `it has ${tags.length} tags; a note holds at most ${LIMITS.tags}`
  const long = tags.find((tag) => tag.length > LIMITS.tag)
  if (long !== undefined)
    return `its tag "${long.slice(0, 40)}…" is longer than the ${LIMITS.tag} characters a tag holds`
  if (!isDate(item.createdOn) || !isDate(item.updatedOn)) return 'its dates cannot be read'
  if (item.title === '' && item.content.trim() === '' && item.files.length === 0) return 'it is empty'
  return undefined
}
