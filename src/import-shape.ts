// What POST /import-notes answers, written once: its progress lines and its summary (docs/migration.md, "The
// answer: a stream, not a job"). The import service, the route's OpenAPI document, the web app and the tests derive
// their types from it. A leaf, so every layer may read it.
import { type Static, Type } from '@sinclair/typebox'

/** How far an import has got: every item read is one of imported, already present or skipped. */
export const ImportCounts = Type.Object({
  items: Type.Integer(),
  imported: Type.Integer(),
  alreadyPresent: Type.Integer(),
  skipped: Type.Integer(),
  attachments: Type.Integer({ description: 'Files stored.' }),
})
export type ImportCounts = Static<typeof ImportCounts>

/** An item (or a note's file) the import could not take, and why. */
export const SkippedItem = Type.Object({ label: Type.String(), reason: Type.String() })
export type SkippedItem = Static<typeof SkippedItem>

export const ImportSummary = Type.Object({
  format: Type.String({ description: 'The format the file was read as ("Google Keep").' }),
  dryRun: Type.Boolean(),
  items: Type.Integer(),
  imported: Type.Integer(),
  alreadyPresent: Type.Integer(),
  attachments: Type.Integer(),
  skipped: Type.Array(SkippedItem, { description: 'The first skipped items, with their reasons.' }),
  skippedCount: Type.Integer({ description: 'Every skipped item, listed or not.' }),
  stopped: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the import stopped before the end (a quota), and how far it got; null when it read it all.',
  }),
})
export type ImportSummary = Static<typeof ImportSummary>
