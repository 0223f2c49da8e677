// The soak's report, on standard output: what ran, how many requests, the answers other than 2xx by kind, the
// figures (revocations, kills, streams and how soon they ended), every invariant with what broke it, and the
// command that replays the run.
import type { Recorder } from './http.js'
import { type SoakSettings, replayCommand } from './settings.js'

export const INVARIANTS = [
  'no 5xx',
  'every acknowledged write is stored',
  'nothing answered with an error is stored',
  'no request served after its revocation',
  'a session ends only when something ended it',
  'every stream ends within 1 s of its session',
  'every replica built from the feed equals the listing',
  'usage counters equal a recount',
] as const

const quantile = (sorted: number[], q: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

export interface RunFacts {
  description: string
  trafficSeconds: number
  totalSeconds: number
  slackMs: number
  /** The servers' lateness at each revocation (ms): see streamEndBoundMs. */
  lateness: number[]
  /** The soak process's own event-loop delay over the run (ms): how late it can see anything. */
  loopDelay: { p99: number; max: number }
  /** What the servers logged as errors (the causes of 5xx answers). */
  serverErrors: string[]
}

export function formatReport(store: string, settings: SoakSettings, recorder: Recorder, facts: RunFacts): string {
  const f = recorder.figures
  const late = [...facts.lateness].sort((a, b) => a - b)
  const ends = f.streamEnds.map((e) => e.lag).sort((a, b) => a - b)
  const slowest = new Map<string, number>()
  for (const e of f.streamEnds) slowest.set(e.by, Math.max(slowest.get(e.by) ?? 0, e.lag))
  const lines = [
    `soak ${store}: ${facts.description}; ${settings.accounts} accounts at once × ${settings.devices} devices, ${settings.busy} busy loops, seed ${settings.seed}`,
    `  ${facts.trafficSeconds.toFixed(0)} s of traffic (${facts.totalSeconds.toFixed(0)} s in all): ${recorder.requests} requests (${(recorder.requests / facts.trafficSeconds).toFixed(0)}/s)`,
    `  accounts ${f.accounts} (deleted ${f.deletedAccounts}), revocations ${f.revocations} (CLI ${f.cliRevocations}), kills ${f.kills}, streams ${f.streams}`,
    `  streams ended after their session's end: ${ends.length}, median ${quantile(ends, 0.5).toFixed(0)} ms, p99 ${quantile(ends, 0.99).toFixed(0)} ms, max ${(ends.at(-1) ?? 0).toFixed(0)} ms`,
    `    bound: 1 s + ${facts.slackMs} ms + the servers' lateness at the revocation (median ${quantile(late, 0.5).toFixed(0)} ms, max ${(late.at(-1) ?? 0).toFixed(0)} ms)`,
    `    slowest by what ended the session: ${[...slowest].map(([by, lag]) => `${by} ${lag.toFixed(0)} ms`).join(', ') || 'none'}`,
    `  the soak's own event-loop delay: p99 ${facts.loopDelay.p99.toFixed(0)} ms, max ${facts.loopDelay.max.toFixed(0)} ms`,
    '  answers other than 2xx, by kind:',
  ]
  const kinds = [...recorder.kinds.entries()].sort((a, b) => b[1].count - a[1].count)
  if (kinds.length === 0) lines.push('    none')
  for (const [kind, { count, routes }] of kinds)
    lines.push(
      `    ${String(count).padStart(6)}  ${kind}  (${[...routes].slice(0, 6).join(', ')}${routes.size > 6 ? ', …' : ''})`,
    )
  if (facts.serverErrors.length > 0) {
    const counted = new Map<string, number>()
    for (const e of facts.serverErrors) counted.set(e.slice(0, 300), (counted.get(e.slice(0, 300)) ?? 0) + 1)
    lines.push('  the servers logged these errors:')
    for (const [e, n] of [...counted].slice(0, 10)) lines.push(`    ${String(n).padStart(6)}  ${e}`)
  }
  lines.push('  invariants:')
  for (const invariant of INVARIANTS) {
    const broken = recorder.violationsOf(invariant)
    lines.push(
      `    ${broken === 0 ? 'held  ' : 'BROKEN'}  ${invariant}${broken > 0 ? ` (${broken} time${broken > 1 ? 's' : ''})` : ''}`,
    )
    for (const v of recorder.violations.filter((x) => x.invariant === invariant))
      lines.push(`              ${v.detail}`)
  }
  lines.push(`  replay: ${replayCommand({ ...settings, stores: [store] })}`)
  return lines.join('\n')
}
