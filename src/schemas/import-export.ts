// POST /import-notes and GET /export-notes (docs/migration.md, "From other notes apps" and "Export"): queries,
// answers, errors and OpenAPI operations. The import's file is multipart/form-data, read as a stream by the route.
import { Type } from '@sinclair/typebox'
import { InsufficientStorage, authErrors, errorBody } from './error-responses.js'
import { operationsOf } from './operations.js'

const operation = operationsOf('notes', true)

const yes = (description: string) =>
  Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description }))

export const ImportQuery = Type.Object({
  dryRun: yes('true: read the file and answer what would be imported, writing nothing.'),
})

export const ExportQuery = Type.Object({
  format: Type.Union([Type.Literal('markdown'), Type.Literal('json')], {
    description: 'markdown: one .md file per note with front matter; json: the full-fidelity records.',
  }),
  trash: yes('true: the trash too.'),
  history: yes("true: every note's kept revisions too."),
})

export const importNotes = {
  ...operation(
    'importNotes',
    'Import notes from another app',
    'multipart/form-data with one part named "file": a Google Keep Takeout (.zip), an Evernote .enex, Markdown (.md ' +
      'or a .zip of a vault or a Joplin export), a Simplenote or Standard Notes export, or a notes-service export. ' +
      'The format is read from the file. Safe to repeat: what an earlier import of the same file wrote is not ' +
      'written again.',
  ),
  querystring: ImportQuery,
  response: {
    200: {
      description:
        'application/x-ndjson, one JSON object per line while the import runs: {"progress": {items, imported, ' +
        'alreadyPresent, skipped, attachments}}, then one last line, {"summary": {format, dryRun, items, imported, ' +
        'alreadyPresent, attachments, skipped: [{label, reason}], skippedCount, stopped}} or, when the file turns out ' +
        'malformed part-way, {"error": true, "message"}.',
      content: { 'application/x-ndjson': { schema: Type.String() } },
    },
    ...authErrors,
    400: errorBody('Not a one-file form, or the file is none of the formats the import reads, or is malformed.'),
    413: errorBody('The file is larger than MAX_IMPORT_MB.', { pattern: '^The file is too large' }),
    507: InsufficientStorage,
  },
}

export const exportNotes = {
  ...operation(
    'exportNotes',
    'Export all notes as a .zip',
    "Streams the account's notes (and, when asked, its trash and history) with its attachments' bytes.",
  ),
  querystring: ExportQuery,
  response: {
    200: {
      description: 'application/zip, with Content-Disposition: attachment.',
      content: { 'application/zip': { schema: Type.Unsafe<string>({ type: 'string', format: 'binary' }) } },
    },
    ...authErrors,
    400: errorBody('format is missing or not markdown or json, or trash or history is not true or false.'),
  },
}
