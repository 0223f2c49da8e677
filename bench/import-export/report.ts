// The import bench's Markdown: the machine, the files, and per measure the range over the rounds (min–max, median)
// beside its target and the dry run or the JSON export measured in the same rounds.
import { cpus, loadavg, totalmem } from 'node:os'
import type { FixtureStats } from './fixtures.js'
import type { StoreName } from './services.js'

export interface Sample {
  store: StoreName
  dryRun: boolean
  format?: 'json' | 'markdown'
  seconds: number
  uploadSeconds?: number
  firstByteSeconds: number
  peakRssMB: number
  hwmMB: number
  idleRssMB: number
  /** The 1-minute load average just before the request. */
  load: number
  summary?: {
    imported: number
    attachments: number
    skippedCount: number
    stopped: string | null
    skipped?: unknown[]
  }
  bytes?: number
  entries?: number
  markdownEntries?: number
}

export interface Row {
  part: 'keep' | 'enex' | 'export'
  fixture?: FixtureStats
  samples: Sample[]
}

const MB = 2 ** 20
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN

/** "min–max (median m)" of `values`, or the one value. */
function range(values: number[], digits = 1): string {
  if (values.length === 0) return '–'
  const f = (n: number) => n.toFixed(digits)
  const lo = Math.min(...values)
  const hi = Math.max(...values)
  return values.length === 1 ? f(lo) : `${f(lo)}–${f(hi)} (median ${f(median(values))})`
}

const verdict = (values: number[], limit: number, strict: boolean) =>
  values.length === 0 ? '' : values.every((v) => (strict ? v < limit : v <= limit)) ? ' ✓' : ' ✗ missed'

function fixtureLine(name: string, f: FixtureStats): string {
  return (
    `- ${name}: ${(f.bytes / MB).toFixed(1)} MiB, ${f.notes.toLocaleString('en-US')} notes, ` +
    `${f.files.toLocaleString('en-US')} files of ${(f.fileBytes / MB).toFixed(1)} MiB in all`
  )
}

interface Target {
  seconds: number
  rssMB?: number
}

const TARGETS: Record<string, Target> = {
  'keep sqlite': { seconds: 60 },
  'keep postgresql': { seconds: 120 },
  'enex sqlite': { seconds: Infinity, rssMB: 300 },
  'export sqlite': { seconds: 30, rssMB: 300 },
  'export postgresql': { seconds: 30, rssMB: 300 },
}

function importRows(row: Row): string[] {
  const out: string[] = []
  const stores = [...new Set(row.samples.map((s) => s.store))]
  const dry = row.samples.filter((s) => s.dryRun)
  for (const store of stores) {
    const real = row.samples.filter((s) => s.store === store && !s.dryRun)
    if (real.length === 0) continue
    const target = TARGETS[`${row.part} ${store}`]
    const seconds = real.map((s) => s.seconds)
    const rss = real.map((s) => s.peakRssMB)
    const timeGoal = target && Number.isFinite(target.seconds) ? `≤ ${target.seconds} s` : '–'
    const rssGoal = target?.rssMB ? `< ${target.rssMB} MiB` : '–'
    const counts = real[0]?.summary
    out.push(
      `| ${row.part} → ${store}: wall time, request start to summary | ${range(seconds)} s${target && Number.isFinite(target.seconds) ? verdict(seconds, target.seconds, false) : ''} | ${timeGoal} |`,
      `| ${row.part} → ${store}: of which the upload | ${range(real.map((s) => s.uploadSeconds ?? NaN))} s | |`,
      `| ${row.part} → ${store}: service peak RSS (sampled VmRSS; VmHWM) | ${range(rss, 0)} MiB; ${range(
        real.map((s) => s.hwmMB),
        0,
      )} MiB${target?.rssMB ? verdict(rss, target.rssMB, true) : ''} | ${rssGoal} |`,
      `| ${row.part} → ${store}: summary | ${counts ? `${counts.imported} imported, ${counts.attachments} files, ${counts.skippedCount} skipped${counts.stopped ? ', stopped' : ''}` : '–'} | |`,
    )
  }
  if (dry.length)
    out.push(
      `| ${row.part}, dry run (reading alone, SQLite, same rounds) | ${range(dry.map((s) => s.seconds))} s; peak RSS ${range(
        dry.map((s) => s.peakRssMB),
        0,
      )} MiB | baseline |`,
    )
  return out
}

function exportRows(row: Row): string[] {
  const out: string[] = []
  for (const store of [...new Set(row.samples.map((s) => s.store))]) {
    for (const format of ['markdown', 'json'] as const) {
      const samples = row.samples.filter((s) => s.store === store && s.format === format)
      if (samples.length === 0) continue
      const target = format === 'markdown' ? TARGETS[`export ${store}`] : undefined
      const seconds = samples.map((s) => s.seconds)
      const rss = samples.map((s) => s.peakRssMB)
      const first = samples[0]!
      out.push(
        `| export ${format} of ${store}: until the zip's last byte is read | ${range(seconds)} s${target ? verdict(seconds, target.seconds, false) : ''} | ${target ? `≤ ${target.seconds} s` : 'comparison'} |`,
        `| export ${format} of ${store}: service peak RSS (sampled; VmHWM since start) | ${range(rss, 0)} MiB; ${range(
          samples.map((s) => s.hwmMB),
          0,
        )} MiB${target?.rssMB ? verdict(rss, target.rssMB, true) : ''} | ${target?.rssMB ? `< ${target.rssMB} MiB` : ''} |`,
        `| export ${format} of ${store}: the zip | ${((first.bytes ?? 0) / MB).toFixed(1)} MiB, ${first.entries} entries (${first.markdownEntries} .md) | |`,
      )
    }
  }
  return out
}

export function importMarkdown(rows: Row[], settings: Record<string, unknown>, startedAt: string): string {
  const cpu = cpus()
  const loads = rows.flatMap((r) => r.samples.map((s) => s.load))
  const lines = [
    '# Import and export (POST /import-notes, GET /export-notes)',
    '',
    `\`npm run bench:import\` (\`node dist-bench/bench/import-export.js\`), started ${startedAt}, with ${Object.entries(
      settings,
    )
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(', ')}.`,
    '',
    `Machine: ${cpu.length} × ${cpu[0]?.model ?? '?'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node.js ${process.version}; ` +
      `1-minute load average before each request ${range(loads, 2)}, at the end ${loadavg()[0]!.toFixed(2)}. ` +
      'Each import round runs on a fresh service and a fresh store (PostgreSQL: a database of its own); ranges are ' +
      'min–max over the rounds. The service peak RSS is the largest VmRSS sampled every 100 ms during the request; ' +
      "VmHWM is the kernel's peak since the process started.",
    '',
    'Files:',
    ...rows
      .filter((r) => r.fixture)
      .map((r) => fixtureLine(r.part === 'keep' ? 'Keep Takeout (.zip)' : 'ENEX', r.fixture!)),
    '',
    '| measure | result | target |',
    '|---|---|---|',
    ...rows.flatMap((r) => (r.part === 'export' ? exportRows(r) : importRows(r))),
    '',
  ]
  return lines.join('\n')
}
