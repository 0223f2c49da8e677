// What the live-update tools share for their results: the command line as the report shows it,
// and the Markdown and JSON files written side by side in bench/results/.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

/** This run's arguments without --out and its value: the report shows the command that made it. */
export function argsWithoutOut(): string[] {
  const args = process.argv.slice(2)
  return args.filter((a, i) => !a.startsWith('--out') && args[i - 1] !== '--out')
}

/** Writes `out`.md and `out`.json; nothing when `out` is empty (`--out ''`). */
export function writeResults(out: string | undefined, markdown: string, json: object): void {
  if (!out) return
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(`${out}.md`, markdown)
  writeFileSync(`${out}.json`, `${JSON.stringify({ date: new Date().toISOString(), ...json }, null, 2)}\n`)
  process.stderr.write(`written: ${out}.md and ${out}.json\n`)
}
