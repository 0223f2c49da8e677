// The answer of POST /import-notes as it streams in (application/x-ndjson): one JSON object a line,
// progress counts while the import runs, then one summary, or an error when the file turned out
// malformed part-way. Read from the text received so far, so a line cut by the network waits for its end.

import type { ImportCounts, ImportSummary } from '../../src/import-shape.js'

export type { ImportCounts, ImportSummary, SkippedItem } from '../../src/import-shape.js'

export type ImportLine = { progress: ImportCounts } | { summary: ImportSummary } | { failed: string }

/** What a line that is not JSON becomes: the answer cannot be trusted from there on. */
export const UNREADABLE_LINE = 'The server’s answer could not be read.'

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0)
const text = (value: unknown) => (typeof value === 'string' ? value : '')

function countsOf(value: Record<string, unknown>): ImportCounts {
  return {
    items: count(value.items),
    imported: count(value.imported),
    alreadyPresent: count(value.alreadyPresent),
    skipped: count(value.skipped),
    attachments: count(value.attachments),
  }
}

function summaryOf(value: Record<string, unknown>): ImportSummary {
  const skipped = Array.isArray(value.skipped) ? value.skipped.filter(isRecord) : []
  return {
    format: text(value.format),
    dryRun: value.dryRun === true,
    items: count(value.items),
    imported: count(value.imported),
    alreadyPresent: count(value.alreadyPresent),
    attachments: count(value.attachments),
    skipped: skipped.map((item) => ({ label: text(item.label), reason: text(item.reason) })),
    skippedCount: Math.max(count(value.skippedCount), skipped.length),
    stopped: typeof value.stopped === 'string' && value.stopped ? value.stopped : null,
  }
}

/** One line of the answer; undefined for a blank line or an object of a kind this app does not know. */
export function readLine(line: string): ImportLine | undefined {
  if (!line.trim()) return undefined
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return { failed: UNREADABLE_LINE }
  }
  if (!isRecord(value)) return { failed: UNREADABLE_LINE }
  if (value.error === true) return { failed: text(value.message) || 'The import failed.' }
  if (isRecord(value.summary)) return { summary: summaryOf(value.summary) }
  if (isRecord(value.progress)) return { progress: countsOf(value.progress) }
  return undefined
}

/** Reads the answer's text as it grows: each call gets all the text so far and returns the lines new in it. */
export class ImportLines {
  private consumed = 0

  /** The lines completed (ended by a newline) since the last call. */
  take(received: string): ImportLine[] {
    const end = received.lastIndexOf('\n')
    if (end < this.consumed) return []
    const lines = received.slice(this.consumed, end).split('\n')
    this.consumed = end + 1
    return lines.flatMap((line) => readLine(line) ?? [])
  }

  /** The answer is complete: its last lines, the one with no newline after it too. */
  finish(received: string): ImportLine[] {
    const lines = this.take(received)
    const rest = received.slice(this.consumed)
    this.consumed = received.length
    const last = readLine(rest)
    return last ? [...lines, last] : lines
  }
}
