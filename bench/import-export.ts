// Import and export through the built service (docs/migration.md): a Google Keep Takeout of 10 000 notes and 1 000
// pictures and a 500 MB Evernote export through POST /import-notes, and 100 000 notes out through GET /export-notes as
// Markdown; wall time and the service's peak RSS, each round on a fresh service and store, beside a dry run of the
// same file (the reading alone, nothing written) in the same round.
// Run: npm run bench:import [-- --out PATH]   (DATABASE_URL adds PostgreSQL: the server on which the bench makes its
//      own databases; env ROUNDS=3, KEEP_NOTES=10000, KEEP_PICTURES=1000, ENEX_MB=500, ENEX_ROUNDS=2,
//      EXPORT_NOTES=100000, EXPORT_ROUNDS=ROUNDS, PARTS=keep,enex,export; 0 or a missing part skips it)
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { type FixtureStats, writeKeepTakeout, writeLargeEnex } from './import-export/fixtures.js'
import { type Row, type Sample, importMarkdown } from './import-export/report.js'
import { type StoreName, freshService, measured } from './import-export/services.js'
import { exportTo, importFile } from './import-export/transfer-client.js'
import { writeResults } from './report.js'

const ROUNDS = Number(process.env.ROUNDS ?? 3)
const KEEP_NOTES = Number(process.env.KEEP_NOTES ?? 10_000)
const KEEP_PICTURES = Number(process.env.KEEP_PICTURES ?? 1000)
const ENEX_MB = Number(process.env.ENEX_MB ?? 500)
const ENEX_ROUNDS = Number(process.env.ENEX_ROUNDS ?? 2)
const EXPORT_NOTES = Number(process.env.EXPORT_NOTES ?? 100_000)
const EXPORT_ROUNDS = Number(process.env.EXPORT_ROUNDS ?? ROUNDS)
const PARTS = new Set((process.env.PARTS ?? 'keep,enex,export').split(','))
const ADMIN_URL = process.env.DATABASE_URL ?? ''
const STORES: StoreName[] = ADMIN_URL ? ['sqlite', 'postgresql'] : ['sqlite']
const MB = 2 ** 20

const log = (text: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${text}\n`)
const load = () => loadavg()[0]!

/** One import on a fresh service: a real run, then (SQLite only, a fresh service too) the dry run of the same file. */
async function importRound(store: StoreName, file: string, dryRun: boolean): Promise<Sample> {
  const bench = await freshService(store, ADMIN_URL)
  try {
    const loadBefore = load()
    const { result, peakRssMB, hwmMB } = await measured(bench, () =>
      importFile(bench.service.url, bench.authorization, file, dryRun),
    )
    const s = result.summary
    log(
      `${store}${dryRun ? ' dry run' : ''}: ${result.seconds.toFixed(1)} s (upload ${result.uploadSeconds.toFixed(1)} s), ` +
        `peak RSS ${peakRssMB.toFixed(0)} MiB (VmHWM ${hwmMB.toFixed(0)}), ${s.imported} imported, ` +
        `${s.attachments} files, ${s.skippedCount} skipped${s.stopped ? `, stopped: ${s.stopped}` : ''}`,
    )
    if (s.skippedCount > 0) log(`  skipped, first: ${JSON.stringify(s.skipped.slice(0, 3))}`)
    return {
      store,
      dryRun,
      seconds: result.seconds,
      uploadSeconds: result.uploadSeconds,
      firstByteSeconds: result.firstByteSeconds,
      peakRssMB,
      hwmMB,
      idleRssMB: bench.idleRssMB,
      load: loadBefore,
      summary: { ...s, skipped: s.skipped.slice(0, 5) },
    }
  } finally {
    await bench.stop()
  }
}

async function importPart(name: string, fixture: FixtureStats, rounds: number, stores: StoreName[]): Promise<Sample[]> {
  const samples: Sample[] = []
  for (let round = 1; round <= rounds; round++) {
    log(`${name}, round ${round} of ${rounds}`)
    // The dry run first: the file's reading alone, the baseline of the same round.
    samples.push(await importRound('sqlite', fixture.path, true))
    for (const store of stores) samples.push(await importRound(store, fixture.path, false))
  }
  return samples
}

async function exportPart(stores: StoreName[], rounds: number, dir: string): Promise<Sample[]> {
  const samples: Sample[] = []
  for (const store of stores) {
    log(`export: seeding ${EXPORT_NOTES} notes on ${store}`)
    const bench = await freshService(store, ADMIN_URL, EXPORT_NOTES)
    try {
      for (let round = 1; round <= rounds; round++) {
        for (const format of ['json', 'markdown'] as const) {
          const loadBefore = load()
          const file = join(dir, `export-${store}-${format}.zip`)
          const { result, peakRssMB, hwmMB } = await measured(bench, () =>
            exportTo(bench.service.url, bench.authorization, `format=${format}`, file),
          )
          rmSync(file, { force: true })
          log(
            `${store} export ${format}, round ${round}: ${result.seconds.toFixed(1)} s, ${(result.bytes / MB).toFixed(0)} MiB, ` +
              `${result.entries} entries (${result.markdownEntries} .md), peak RSS ${peakRssMB.toFixed(0)} MiB`,
          )
          samples.push({
            store,
            dryRun: false,
            format,
            seconds: result.seconds,
            firstByteSeconds: result.firstByteSeconds,
            peakRssMB,
            hwmMB,
            idleRssMB: bench.idleRssMB,
            load: loadBefore,
            bytes: result.bytes,
            entries: result.entries,
            markdownEntries: result.markdownEntries,
          })
        }
      }
    } finally {
      await bench.stop()
    }
  }
  return samples
}

// An interrupted run ends its services too (processes.ts kills them on exit).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130))

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'notes-bench-import-files-'))
  const rows: Row[] = []
  const fixtures: Record<string, FixtureStats> = {}
  const startedAt = new Date().toISOString()
  const settings = {
    ROUNDS,
    KEEP_NOTES,
    KEEP_PICTURES,
    ENEX_MB,
    ENEX_ROUNDS,
    EXPORT_NOTES,
    EXPORT_ROUNDS,
    stores: STORES,
  }
  const i = process.argv.indexOf('--out')
  const out = i >= 0 ? process.argv[i + 1] : 'bench/results/import-export'
  // Written after each part, so a run stopped part-way keeps what it measured.
  const write = () => {
    const markdown = importMarkdown(rows, settings, startedAt)
    writeResults(out, markdown, { settings, fixtures, rows })
    return markdown
  }
  try {
    if (PARTS.has('keep') && KEEP_NOTES > 0 && ROUNDS > 0) {
      log(`writing a Keep Takeout of ${KEEP_NOTES} notes and ${KEEP_PICTURES} pictures`)
      const keep = await writeKeepTakeout(join(dir, 'takeout.zip'), KEEP_NOTES, KEEP_PICTURES)
      fixtures.keep = keep
      rows.push({ part: 'keep', fixture: keep, samples: await importPart('keep', keep, ROUNDS, STORES) })
      write()
      rmSync(keep.path, { force: true })
    }
    if (PARTS.has('enex') && ENEX_MB > 0 && ENEX_ROUNDS > 0) {
      log(`writing an ENEX of ${ENEX_MB} MB`)
      const enex = await writeLargeEnex(join(dir, 'export.enex'), ENEX_MB * 1e6, 4 * MB)
      fixtures.enex = enex
      rows.push({ part: 'enex', fixture: enex, samples: await importPart('enex', enex, ENEX_ROUNDS, ['sqlite']) })
      write()
      rmSync(enex.path, { force: true })
    }
    if (PARTS.has('export') && EXPORT_NOTES > 0 && EXPORT_ROUNDS > 0)
      rows.push({ part: 'export', samples: await exportPart(STORES, EXPORT_ROUNDS, dir) })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  process.stdout.write(write())
}

await main()
