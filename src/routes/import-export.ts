// POST /import-notes and GET /export-notes (docs/migration.md): thin handlers over NoteImportService and
// NoteExportService. The import's file is written to a temporary folder first (a zip is read from its end), and the
// answer streams the import's progress as JSON lines; its status is sent once the import has read its first item,
// so a file found malformed before that is a plain 400.
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import multipart from '@fastify/multipart'
import type { Static } from '@sinclair/typebox'
import { create as contentDisposition } from 'content-disposition'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ContractError, badRequest } from '../errors.js'
import type { Authenticate } from '../plugins/auth.js'
import { type ExportQuery, type ImportQuery, exportNotes, importNotes } from '../schemas/import-export.js'
import type { NoteExportService } from '../transfer/note-export.js'
import type { ImportCounts } from '../import-shape.js'
import type { NoteImportService } from '../transfer/note-import.js'
import { UPLOAD_FORM } from './attachments.js'

/** The most bytes of part headers and boundaries a one-file form carries beside the file. */
const FORM_OVERHEAD = 64 * 1024

/** How often, at most, a progress line is sent. */
const PROGRESS_MS = 250

export interface ImportExportEndpoints {
  imports: NoteImportService
  /** Undefined: the store has no export pages here, and GET /export-notes is not served. */
  exports: NoteExportService | undefined
  /** MAX_IMPORT_MB in bytes. */
  importBytes: number
}

const tooLarge = (bytes: number) =>
  new ContractError(413, `The file is too large: an import takes at most ${Math.floor(bytes / 2 ** 20)} MB`)

/** Writes the form's one file into `dir`: its path and the name the person gave it. */
async function receive(
  request: FastifyRequest,
  dir: string,
  maxBytes: number,
): Promise<{ path: string; name?: string }> {
  if (!request.isMultipart()) throw badRequest(UPLOAD_FORM)
  const declared = Number(request.headers['content-length'])
  if (Number.isSafeInteger(declared) && declared > maxBytes + FORM_OVERHEAD) throw tooLarge(maxBytes)
  const part = await request.file({ limits: { files: 1, fileSize: maxBytes, fields: 10, parts: 20 } }).catch(() => {
    throw badRequest(UPLOAD_FORM)
  })
  if (!part || part.fieldname !== 'file') throw badRequest(UPLOAD_FORM)
  const path = join(dir, 'upload')
  await pipeline(part.file, createWriteStream(path)).catch((err: unknown) => {
    part.file.resume()
    throw (err as { code?: unknown }).code === 'FST_REQ_FILE_TOO_LARGE' ? tooLarge(maxBytes) : badRequest(UPLOAD_FORM)
  })
  if (part.file.truncated) throw tooLarge(maxBytes)
  return { path, ...(part.filename ? { name: part.filename } : {}) }
}

const line = (value: unknown) => `${JSON.stringify(value)}\n`

export async function importExportRoutes(
  app: FastifyInstance,
  { imports, exports, importBytes }: ImportExportEndpoints,
  authenticate: Authenticate,
): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(multipart)
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null))
    scope.post<{ Querystring: Static<typeof ImportQuery> }>('/import-notes', {
      onRequest: authenticate,
      schema: importNotes,
      handler: async (request, reply) => {
        const dir = await mkdtemp(join(tmpdir(), 'notes-upload-'))
        const cleanUp = () => rm(dir, { recursive: true, force: true })
        try {
          const file = await receive(request, dir, importBytes)
          const source = await imports.open(file.path, file.name)
          const out = new PassThrough()
          let sent = 0
          let begun: () => void = () => {}
          const firstItem = new Promise<void>((resolve) => (begun = resolve))
          const progress = (counts: Readonly<ImportCounts>) => {
            begun()
            const now = Date.now()
            if (now - sent < PROGRESS_MS) return
            sent = now
            out.write(line({ progress: counts }))
          }
          const dryRun = request.query.dryRun === 'true'
          const run = imports
            .run(request.user._id, source, { dryRun, onProgress: progress })
            .finally(() => source.close().then(cleanUp))
          // Settled either way before the answer starts: a failure before the first item is the answer itself.
          await Promise.race([firstItem, run.then(() => {})])
          run.then(
            (summary) => out.end(line({ summary })),
            (err: unknown) => {
              const known = err instanceof ContractError && err.statusCode < 500
              if (!known) request.log.error({ err }, 'import failed')
              out.end(line({ error: true, message: known ? err.message : 'The import failed on the server' }))
            },
          )
          return reply.type('application/x-ndjson; charset=utf-8').header('cache-control', 'no-store').send(out)
        } catch (err) {
          await cleanUp()
          throw err
        }
      },
    })
  })

  if (!exports) return
  app.get<{ Querystring: Static<typeof ExportQuery> }>('/export-notes', {
    onRequest: authenticate,
    schema: exportNotes,
    handler: async (request, reply) => {
      const { format, trash, history } = request.query
      const exportedOn = new Date().toISOString()
      const zip = exports.export(
        request.user._id,
        { format, trash: trash === 'true', history: history === 'true' },
        exportedOn,
      )
      const name = `notes-${format}-${exportedOn.slice(0, 10)}.zip`
      return reply
        .type('application/zip')
        .header('content-disposition', contentDisposition(name))
        .header('cache-control', 'no-store')
        .send(zip)
    },
  })
}
