// How the account page words an import and an export: the sources it reads, the upload's and the
// import's progress, the summary's headline and counts, and what an export is called.
import { formatBytes } from '../../attachments/format.js'
import type { ImportCounts, ImportSummary } from '../../import-lines.js'

/** The sources the import reads, each with the file to give it, as a person knows them. */
export const IMPORT_SOURCES: Array<[string, string]> = [
  ['Google Keep', 'the Takeout .zip'],
  ['Evernote', 'a notebook exported as .enex'],
  ['Markdown', 'a folder as .zip, or one .md file'],
  ['Simplenote', 'the export’s .zip or notes.json'],
  ['Standard Notes', 'a decrypted backup (.txt or .zip)'],
  ['This app', 'an export, Markdown or JSON (.zip)'],
]

/** What the file chooser offers. */
export const IMPORT_ACCEPT = '.zip,.enex,.json,.txt,.md'

export const OFFLINE_IMPORT = 'Importing needs a connection. You are offline; try again once you are back online.'
export const OFFLINE_EXPORT = 'Exporting needs a connection. You are offline; try again once you are back online.'

export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** "Uploading “keep.zip”… 1.2 MB of 3.4 MB". */
export function uploadText(name: string, sent: number, total: number): string {
  const amount = total > 0 ? `${formatBytes(sent)} of ${formatBytes(total)}` : formatBytes(sent)
  return `Uploading “${name}”… ${amount}`
}

/** "Importing “keep.zip”… 120 items read: 100 imported, 15 already here, 5 skipped". */
export function importingText(name: string, counts: ImportCounts | undefined): string {
  if (!counts || counts.items === 0) return `Importing “${name}”…`
  const parts = [`${counts.imported} imported`]
  if (counts.alreadyPresent > 0) parts.push(`${counts.alreadyPresent} already here`)
  if (counts.skipped > 0) parts.push(`${counts.skipped} skipped`)
  return `Importing “${name}”… ${plural(counts.items, 'item', 'items')} read: ${parts.join(', ')}`
}

/** What an import that stopped part-way leaves, from the last counts it sent. */
export function keptText(counts: ImportCounts | undefined): string {
  const kept = counts?.imported ? `The ${plural(counts.imported, 'note', 'notes')} imported before that stay. ` : ''
  return `${kept}Importing the same file again adds only the notes not yet here.`
}

/** The summary's first line: which file, read as which format, and whether the import read all of it. */
export function summaryHeadline(name: string, summary: ImportSummary): string {
  const from = summary.format ? ` (${summary.format})` : ''
  if (summary.dryRun) return `Checked “${name}”${from}: nothing was imported.`
  if (summary.stopped) return `The import of “${name}”${from} stopped before the end.`
  if (summary.imported === 0) return `Nothing new in “${name}”${from}.`
  return `Imported “${name}”${from}.`
}

/** The summary's counts, as term and value. */
export function summaryCounts(summary: ImportSummary): Array<[string, string]> {
  return [
    ['Imported', plural(summary.imported, 'note', 'notes')],
    ['Already here', plural(summary.alreadyPresent, 'note', 'notes')],
    ['Attachments', plural(summary.attachments, 'file', 'files')],
    ['Skipped', plural(summary.skippedCount, 'item', 'items')],
  ]
}

/** The skipped list's heading, saying when it lists only the first ones. */
export function skippedHeading(summary: ImportSummary): string {
  const listed = summary.skipped.length
  const all = plural(summary.skippedCount, 'item skipped', 'items skipped')
  return listed < summary.skippedCount ? `${all}, and why (the first ${listed})` : `${all}, and why`
}

/** What Export says it downloaded. */
export const exportedText = (name: string) => `Downloaded “${name}”.`
