// Helpers for the transfer tests: temporary files, an import or export with captured output.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { exportData, type ExportOptions } from '../../src/transfer/export.js'
import { type ImportSummary, importData } from '../../src/transfer/import.js'
import { Progress } from '../../src/transfer/progress.js'
import type { TestStore } from './stores.js'

export class TempDir {
  readonly path = mkdtempSync(join(tmpdir(), 'notes-transfer-'))
  file(name: string, text?: string): string {
    const path = join(this.path, name)
    if (text !== undefined) writeFileSync(path, text)
    return path
  }
  read(name: string): string {
    return readFileSync(join(this.path, name), 'utf8')
  }
  remove(): void {
    rmSync(this.path, { recursive: true, force: true })
  }
}

export interface ImportRun {
  summary: ImportSummary
  /** What the progress reporter printed (rejections and phase lines). */
  output: string
}

export async function runImport(
  store: TestStore,
  files: { users?: string; notes?: string; trash?: string; history?: string },
  options: { strict?: boolean; batchSize?: number } = {},
): Promise<ImportRun> {
  let output = ''
  const progress = new Progress({ write: (text: string) => (output += text) }, { tty: false })
  const summary = await importData({
    store,
    ...(files.users ? { usersFile: files.users } : {}),
    ...(files.notes ? { notesFile: files.notes } : {}),
    ...(files.trash ? { trashFile: files.trash } : {}),
    ...(files.history ? { historyFile: files.history } : {}),
    strict: options.strict ?? false,
    hashConcurrency: 8,
    progress,
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
  })
  return { summary, output }
}

/** Exports users (with hashes) and notes to two files and returns their text. */
export async function exportTexts(
  store: TestStore,
  dir: TempDir,
  name: string,
  options: Partial<ExportOptions> = {},
): Promise<{ users: string; notes: string }> {
  const usersOut = dir.file(`${name}-users.json`)
  const notesOut = dir.file(`${name}-notes.json`)
  await exportData({ store, usersOut, notesOut, withPasswordHashes: true, ...options })
  return { users: dir.read(`${name}-users.json`), notes: dir.read(`${name}-notes.json`) }
}

export type ExportedFiles = Record<'users' | 'notes' | 'trash' | 'history', string>

/** Exports users (with hashes), notes, the trash and the history to four files: their paths and their text. */
export async function exportAll(
  store: TestStore,
  dir: TempDir,
  name: string,
  options: Partial<ExportOptions> = {},
): Promise<{ files: ExportedFiles; texts: ExportedFiles }> {
  const files = {
    users: dir.file(`${name}-users.json`),
    notes: dir.file(`${name}-notes.json`),
    trash: dir.file(`${name}-trash.json`),
    history: dir.file(`${name}-history.json`),
  }
  await exportData({
    store,
    usersOut: files.users,
    notesOut: files.notes,
    trashOut: files.trash,
    historyOut: files.history,
    withPasswordHashes: true,
    ...options,
  })
  const texts = {
    users: dir.read(`${name}-users.json`),
    notes: dir.read(`${name}-notes.json`),
    trash: dir.read(`${name}-trash.json`),
    history: dir.read(`${name}-history.json`),
  }
  return { files, texts }
}
