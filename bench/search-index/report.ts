// The search benchmark's Markdown (run.ts): one section per store and size.
import type { Relation, StoreSize, Timed } from './measure.js'

export interface PatternRow extends Timed {
  query: string
  /** Notes of the corpus the pattern matches, counted by the generator's own regular expression. */
  expected: number
}

export interface ConcurrentSearch {
  query: string
  connections: number
  seconds: number
  rps: number
  p50: number
  p99: number
  non2xx: number
  errors: number
}

export interface SizeResult {
  store: string
  notes: number
  seedSeconds: number
  /** From the service's start until its search index was complete; undefined: no index. */
  indexSeconds?: number
  warmup: number
  patterns: PatternRow[]
  /** GET /get-all-notes of an account holding as many notes as the listing pattern finds. */
  listing: Timed & { notes: number; query: string }
  concurrent?: ConcurrentSearch
  size: StoreSize
}

const n = (x: number) => x.toLocaleString('en-US').replaceAll(',', ' ')
export const ms = (x: number) => (Number.isNaN(x) ? '–' : x.toFixed(x < 10 ? 2 : x < 100 ? 1 : 0))
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(bytes < 10 * 2 ** 20 ? 2 : 1)
/** A pattern as a code span inside a table cell (GFM: a pipe is escaped even there). */
const code = (query: string) => `\`${query.replaceAll('|', '\\|')}\``
const others = (other: Record<string, number>) =>
  Object.entries(other)
    .map(([status, count]) => `${count} × ${status}`)
    .join(', ') || '0'

function patternTable(rows: PatternRow[]): string[] {
  const lines = [
    '| pattern | results | answer KB | p50 ms | p99 ms | 400 (over budget) | other statuses | p50 ms of the 200s |',
    '|---|---:|---:|---:|---:|---:|---|---:|',
  ]
  for (const r of rows) {
    const results =
      r.results === undefined
        ? '–'
        : r.results === r.expected
          ? n(r.results)
          : `${n(r.results)} (corpus: ${n(r.expected)})`
    const kb = r.answerBytes === undefined ? '–' : n(Math.round(r.answerBytes / 1024))
    lines.push(
      `| ${code(r.query)} | ${results} | ${kb} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.overBudget} | ${others(r.other)} | ${ms(r.okP50)} |`,
    )
  }
  return lines
}

/**
 * The notes table and everything serving it (indexes, TOAST) one by one, any other relation of
 * at least 1 % of the total too, and the rest as one line.
 */
function sizeTable(store: string, size: StoreSize): string[] {
  const shown = (r: Relation) => r.table === 'notes' || r.bytes >= size.totalBytes / 100
  const rest = size.relations.filter((r) => !shown(r))
  const total = store === 'PostgreSQL' ? 'pg_database_size' : 'database file'
  const wal = size.walBytes ? ` (write-ahead log beside it: ${mb(size.walBytes)} MB)` : ''
  const lines = [
    `${total}: **${mb(size.totalBytes)} MB**${wal}`,
    '',
    `| relation | kind | of table | MB | share of ${total} |`,
    '|---|---|---|---:|---:|',
  ]
  for (const r of size.relations.filter(shown)) {
    lines.push(
      `| ${r.name} | ${r.kind} | ${r.table} | ${mb(r.bytes)} | ${((r.bytes / size.totalBytes) * 100).toFixed(1)} % |`,
    )
  }
  const restBytes = rest.reduce((sum, r) => sum + r.bytes, 0)
  if (rest.length > 0)
    lines.push(
      `| ${rest.length} other relations | | | ${mb(restBytes)} | ${((restBytes / size.totalBytes) * 100).toFixed(1)} % |`,
    )
  return lines
}

export function sizeSection(r: SizeResult): string {
  const listingQuery = r.patterns.find((p) => p.query === r.listing.query)
  const ratio = listingQuery ? listingQuery.p50 / r.listing.p50 : NaN
  const lines = [
    `## ${r.store}, ${n(r.notes)} notes`,
    '',
    `One account, seeded in ${r.seedSeconds.toFixed(1)} s; ${r.indexSeconds === undefined ? 'no search index' : `search index built by the service in ${r.indexSeconds.toFixed(1)} s`}. Each pattern: ${r.warmup} warm-up searches, then ${n(r.patterns[0]?.requests ?? 0)} timed, one at a time over one kept-alive connection (to the answer's last byte); p50 and p99 are of every timed answer, a 400 included.`,
    '',
    ...patternTable(r.patterns),
    '',
    `GET /get-all-notes of an account holding ${n(r.listing.notes)} notes (as many as ${code(r.listing.query)} finds; answer ${r.listing.answerBytes === undefined ? '–' : n(Math.round(r.listing.answerBytes / 1024))} KB), ${r.listing.requests} requests: ` +
      `p50 ${ms(r.listing.p50)} ms, p99 ${ms(r.listing.p99)} ms${r.listing.overBudget || Object.keys(r.listing.other).length ? `, non-200: ${r.listing.overBudget} × 400, ${others(r.listing.other)}` : ''}. ` +
      `**${code(r.listing.query)} search p50 / listing p50: ${ratio.toFixed(2)}**.`,
  ]
  if (r.concurrent) {
    const c = r.concurrent
    lines.push(
      '',
      `${code(c.query)} at ${c.connections} connections (autocannon, ${c.seconds} s after a warm-up): **${Math.round(c.rps)} searches/s**, p50 ${ms(c.p50)} ms, p99 ${ms(c.p99)} ms, non-2xx ${c.non2xx}, errors ${c.errors}.`,
    )
  }
  lines.push('', ...sizeTable(r.store, r.size))
  return lines.join('\n')
}

export function report(header: string[], results: SizeResult[]): string {
  return `${[...header, '', ...results.map(sizeSection).flatMap((s) => [s, ''])].join('\n').trimEnd()}\n`
}
