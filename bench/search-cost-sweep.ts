// What one RE2 call costs for the worst patterns search accepts (src/services/search-cost.ts):
// families of adversarial patterns (counted repetitions of groups with loops or optional parts,
// alternations of `.*x`, nested counted repetitions, wide and Unicode classes), each taken at the
// largest size the cost bound accepts, timed over 100 000-character texts chosen to keep every
// copy alive ('a' × 99 990 + '!', random letters, the pattern's own letters, CJK, digits,
// 2-byte letters); and ordinary patterns. Each pattern runs in a child process with a time limit,
// so a pattern that would take minutes reports "> limit" instead of holding the sweep.
// Prints, per pattern: its estimated cost, accepted or refused, the slowest text's milliseconds
// per call, and that per cost unit per 1 000 characters (the figure MAX_PATTERN_COST rests on).
//
// Run: npm run build:bench && node dist-bench/bench/search-cost-sweep.js [--limit-ms N] [--refused] [--only REGEX]
// --refused: also times each family just past the bound (what a refusal saves; slow).
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { MAX_PATTERN_COST, patternCost } from '../src/services/search-cost.js'

const CHARS = 100_000

function random(alphabet: string[], n: number, seed: number): string {
  let s = seed
  let out = ''
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff
    out += alphabet[s % alphabet.length]
  }
  return out
}

/** Texts of CHARS characters (UTF-16 units) that keep a pattern's copies alive. */
function texts(pattern: string): Record<string, string> {
  const own = [...new Set(pattern.toLowerCase().replace(/[^\p{L}\p{N} ]/gu, ''))]
  return {
    a: 'a'.repeat(CHARS - 10) + '!',
    letters: random([...'abcdefghijklmnopqrstuvwxyz'], CHARS, 1),
    own: random(own.length > 0 ? [...own, ' '] : ['a'], CHARS, 7),
    cjk: random([...'漢字仮名交じり文東京大阪'], CHARS, 3),
    digits: random([...'0123456789'], CHARS, 5),
    latin2: random([...'éüßøåçñ'], CHARS, 11),
  }
}

/** In the child: compiles `pattern` as the search threads do and times one call per text. */
function child(pattern: string): void {
  const RE2 = createRequire(import.meta.url)('re2') as new (p: string, f: string) => { test(s: string): boolean }
  const re = new RE2(pattern, 'iu')
  const times: Record<string, number> = {}
  for (const [name, text] of Object.entries(texts(pattern))) {
    const started = performance.now()
    re.test(text)
    times[name] = performance.now() - started
  }
  process.stdout.write(JSON.stringify(times))
}

interface Timing {
  slowestMs: number
  text: string
}

/** The slowest text's call; or `{ failed }`: 'timeout' past `limitMs`, else the child's error. */
function time(pattern: string, limitMs: number): Timing | { failed: string } {
  const run = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), '--child', pattern], {
    timeout: limitMs,
    encoding: 'utf8',
  })
  if (run.signal) return { failed: 'timeout' }
  if (run.status !== 0) return { failed: run.stderr.split('\n').find((l) => l.includes('Error')) ?? 'failed' }
  const times = JSON.parse(run.stdout) as Record<string, number>
  const [text, slowestMs] = Object.entries(times).sort((a, b) => b[1] - a[1])[0] as [string, number]
  return { slowestMs, text }
}

/** Families of adversarial patterns, by their size parameter n. */
const ATOMS = ['a', '.', '(?s).', '\\w', '[a-z]', '\\d', '[^a]', '\\S', '\\pL', '\\p{Greek}', '漢', 'é']
const FAMILIES: Array<[string, (n: number) => string]> = [
  ...ATOMS.map((x): [string, (n: number) => string] => [`(X{1,10}){n}! X=${x}`, (n) => `(${x}{1,10}){${n}}!`]),
  ...ATOMS.map((x): [string, (n: number) => string] => [`(.*X){n} X=${x}`, (n) => `(.*${x}){${n}}`]),
  ...ATOMS.map((x): [string, (n: number) => string] => [`X{n}! X=${x}`, (n) => `${x}{${n}}!`]),
  ['(X?){n}X{n}!', (n) => `(a?){${n}}a{${n}}!`],
  ['(a|aa|aaa|aaaa){n}!', (n) => `(a|aa|aaa|aaaa){${n}}!`],
  ['(.*a|.*b|...|.*z){n}', (n) => `(${[...'abcdefghijklmnopqrstuvwxyz'].map((c) => `.*${c}`).join('|')}){${n}}`],
  [
    '(.*a|.*b|...|.*z){n} (?s)',
    (n) => `(?s)(${[...'abcdefghijklmnopqrstuvwxyz'].map((c) => `.*${c}`).join('|')}){${n}}`,
  ],
  ['((.{1,n}){10}){10}!', (n) => `((.{1,${n}}){10}){10}!`],
  ['((a{1,n}){10}){10}!', (n) => `((a{1,${n}}){10}){10}!`],
  ['(\\w+\\s){n}!', (n) => `(\\w+\\s){${n}}!`],
  ['([^!]*?a){n}', (n) => `([^!]*?a){${n}}`],
  ['(a*a*){n}!', (n) => `(a*a*){${n}}!`],
  ['(.{n})+!', (n) => `(.{${n}})+!`],
  ['(\\S+ ){n}x!', (n) => `(\\S+ ){${n}}x!`],
  ['(\\pL|\\pN){n}!', (n) => `(\\pL|\\pN){${n}}!`],
]

/** The largest n in [1, 1000] whose pattern the bound accepts (costs grow with n). */
function largestAccepted(make: (n: number) => string): number {
  let lo = 0
  let hi = 1001
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1
    if (patternCost(make(mid)) <= MAX_PATTERN_COST) lo = mid
    else hi = mid
  }
  return lo
}

const ORDINARY = [
  'groceries',
  'meet(ing)? at [0-9]{1,2}(am|pm)',
  '\\d{4}-\\d{2}',
  '[a-z]+@[a-z]+\\.com',
  Array.from({ length: 40 }, (_, i) => `word${i}`).join('|'),
  'the quick brown fox jumps over the lazy dog. '.repeat(12).slice(0, 500),
  'lorem ipsum dolor sit amet, consectetur adipiscing elit; 0123456789! '.repeat(8).slice(0, 500),
  '\\bgrocer(y|ies)\\b',
  '(?i)todo:?\\s+\\w+',
  '\\p{Han}+',
  '漢字仮名交じり文'.repeat(20),
]

function main(): void {
  const { values } = parseArgs({
    options: {
      child: { type: 'string' },
      'limit-ms': { type: 'string', default: '30000' },
      refused: { type: 'boolean', default: false },
      only: { type: 'string' },
    },
  })
  if (values.child !== undefined) return child(values.child)
  const limitMs = Number(values['limit-ms'])
  const only = values.only === undefined ? undefined : new RegExp(values.only)
  const rows: string[] = []
  let worst = { ms: 0, pattern: '' }
  const row = (family: string, pattern: string) => {
    const cost = patternCost(pattern)
    const t = time(pattern, limitMs)
    const accepted = cost <= MAX_PATTERN_COST
    let ms = '',
      per = ''
    if ('failed' in t) ms = t.failed === 'timeout' ? `> ${limitMs}` : t.failed
    else {
      ms = `${t.slowestMs.toFixed(1)} (${t.text})`
      per = ((t.slowestMs * 1000) / (cost * (CHARS / 1000))).toFixed(2)
      if (accepted && t.slowestMs > worst.ms) worst = { ms: t.slowestMs, pattern }
    }
    if (accepted && 'failed' in t && t.failed === 'timeout') worst = { ms: Infinity, pattern }
    const shown = pattern.length > 60 ? `${pattern.slice(0, 57)}...` : pattern
    const line = `| ${family} | \`${shown.replace(/\|/g, '\\|')}\` | ${Math.ceil(cost)} | ${accepted ? 'accepted' : 'refused'} | ${ms} | ${per} |`
    rows.push(line)
    console.log(line)
  }
  console.log(
    `MAX_PATTERN_COST ${MAX_PATTERN_COST}; one call over ${CHARS} characters, slowest text; µs per cost unit per 1 000 characters\n`,
  )
  console.log('| family | pattern | cost | | ms per call (text) | µs/unit/kchar |\n|---|---|---|---|---|---|')
  for (const [family, make] of FAMILIES) {
    if (only && !only.test(family)) continue
    const n = largestAccepted(make)
    if (n >= 1) row(family, make(n))
    if (values.refused) row(family, make(Math.min(1000, Math.max(n + 1, 2 * n))))
  }
  if (!only) for (const pattern of ORDINARY) row('ordinary', pattern)
  console.log(
    `\nslowest accepted call: ${worst.ms === Infinity ? `> ${limitMs}` : worst.ms.toFixed(1)} ms for \`${worst.pattern}\``,
  )
}

main()
