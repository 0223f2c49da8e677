// What one RE2 call of a search pattern can cost, estimated from the pattern's syntax before it
// runs (docs/search.md). A native RE2 call cannot be interrupted, so the search budget is checked
// only between calls (search-worker.ts): a pattern whose single call over one note runs for
// seconds keeps its search thread busy that long, whatever the budget. RE2 is linear in the text,
// with a factor set by the compiled program: its DFA runs in near-constant time per byte while
// its states fit in memory, and when they do not (large counted repetitions of groups, such as
// `(.*a){1000}`), RE2 falls back to its NFA, which visits up to every instruction of the program
// for every byte. The estimate is an upper bound of that NFA's work per character of text, in
// units of one case-folded ASCII literal: counted repetitions multiply their operand's cost,
// concatenations and alternations add, and each atom weighs what RE2's compiled form of it
// costs the NFA (measured; docs/search.md). A pattern over MAX_PATTERN_COST is refused
// with a 400 before it runs, so that the worst accepted call over the largest note the limits
// allow stays a fraction of the default budget.
//
// The patterns are RE2's syntax, as node-re2 hands them to RE2 (it only rewrites JavaScript's
// `\uXXXX`, `\u{...}`, `\cX` and long `\p{...}` names): `(?i)`, `(?P<name>...)`, `\pL`, `\Q...\E`,
// `[[:alpha:]]`, `x{,3}` (a literal) are RE2's and not JavaScript's, so a JavaScript regex parser
// (regjsparser) would refuse or misread valid patterns. This scanner reads RE2's grammar, in one
// pass, before RE2 compiles the pattern (search-pool.ts): on text RE2 would refuse it still ends
// with a number, never throws. It over-counts (never under-counts) what it reads loosely: a
// character class weighs its widest possible form, every capture and assertion counts.

/** The refusal threshold, in cost units per character of text (docs/search.md for the figures). */
export const MAX_PATTERN_COST = 1000

/**
 * What each element costs RE2's NFA per character of text, relative to a case-folded ASCII
 * literal, measured over 100 000-character texts that keep every copy of it alive (patterns such
 * as `(X{1,10}){100}!`, which RE2 cannot run on its DFA; docs/search.md), rounded up.
 */
const WEIGHT = {
  /** An ASCII character, or an empty-width assertion (`^`, `$`, `\b`, ...). */
  ascii: 1,
  /** A class of ASCII characters (`[a-z]`, `\d`, `\w`): case folding adds K (U+212A) and ſ (U+017F). */
  asciiClass: 2,
  /** `.`, a negated class, `\S`, `\W`, `\D`, or a class with non-ASCII members: every UTF-8 length. */
  wide: 6,
  /**
   * A Unicode property (`\pL`, `\p{Greek}`), or a class holding one: up to hundreds of byte ranges.
   * Every property weighs what the costliest measured one does (`\pL`, case-folded: ~40).
   */
  property: 50,
  /** The alternation instruction of `|`, `?`, `*`, `+` and of each optional copy of `{n,m}`. */
  branch: 1,
  /** A capturing group's two capture instructions. */
  capture: 2,
} as const

/** A non-ASCII literal weighs its UTF-8 length: the NFA steps once per byte. */
function literalWeight(codePoint: number): number {
  if (codePoint < 0x80) return WEIGHT.ascii
  if (codePoint < 0x800) return 2
  if (codePoint < 0x10000) return 3
  return 4
}

/** `{n}`, `{n,}` or `{n,m}` at `i`: RE2's counted repetition (anything else is literal text). */
const REPEAT = /^\{(\d+)(,(\d*))?\}/

const PERL_CLASSES: Record<string, number> = { d: WEIGHT.asciiClass, s: WEIGHT.asciiClass, w: WEIGHT.asciiClass, D: WEIGHT.wide, S: WEIGHT.wide, W: WEIGHT.wide }
const EMPTY_WIDTH = new Set(['b', 'B', 'A', 'z'])

class Scanner {
  private i = 0
  constructor(private readonly p: string) {}

  /** The whole pattern's cost. */
  pattern(): number {
    let cost = this.alternation()
    // A `)` without its `(` (RE2 refuses it; counted as a literal if this is ever reached).
    while (this.i < this.p.length) {
      this.i++
      cost += WEIGHT.ascii + this.alternation()
    }
    return cost
  }

  /** Alternatives up to the end or an unmatched `)`: their costs add, plus one branch each. */
  private alternation(): number {
    let cost = this.concatenation()
    while (this.p[this.i] === '|') {
      this.i++
      cost += WEIGHT.branch + this.concatenation()
    }
    return cost
  }

  private concatenation(): number {
    let cost = 0
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') cost += this.repeated(this.atom())
    return cost
  }

  /** Applies the quantifiers after an atom of cost `cost`. */
  private repeated(cost: number): number {
    for (;;) {
      const c = this.p[this.i]
      if (c === '*' || c === '+' || c === '?') {
        this.i++
        cost += WEIGHT.branch
      } else if (c === '{') {
        const m = REPEAT.exec(this.p.slice(this.i))
        if (!m) return cost
        this.i += m[0].length
        const min = Number(m[1])
        // x{n} is n copies; x{n,} is n copies and a loop; x{n,m} is n copies and m-n optional ones.
        if (m[2] === undefined) cost *= min
        else if (m[3] === '') cost = cost * Math.max(min, 1) + WEIGHT.branch
        else {
          const max = Math.max(min, Number(m[3]))
          cost = cost * max + (max - min) * WEIGHT.branch
        }
      } else return cost
      if (this.p[this.i] === '?') this.i++ // non-greedy: the same program
    }
  }

  private atom(): number {
    const c = this.p[this.i] as string
    if (c === '(') return this.group()
    if (c === '[') return this.charClass()
    if (c === '\\') return this.escape(false).weight
    const code = this.p.codePointAt(this.i) as number
    this.i += code > 0xffff ? 2 : 1
    if (c === '.') return WEIGHT.wide
    if (c === '^' || c === '$') return WEIGHT.ascii
    return literalWeight(code)
  }

  private group(): number {
    this.i++ // (
    let capture = true
    if (this.p[this.i] === '?') {
      const rest = this.p.slice(this.i)
      const named = /^\?P?<[^>]*>/.exec(rest)
      const flags = /^\?[a-zA-Z-]*([:)])/.exec(rest)
      if (named) this.i += named[0].length
      else if (flags) {
        this.i += flags[0].length
        // `(?i)` sets flags for the rest of the group: it costs nothing itself.
        if (flags[1] === ')') return 0
        capture = false
      } else this.i++
    }
    const cost = this.alternation()
    if (this.p[this.i] === ')') this.i++
    return cost + (capture ? WEIGHT.capture : 0)
  }

  /** `[...]`: its widest member's weight (a class is one set of byte ranges for the NFA). */
  private charClass(): number {
    this.i++ // [
    let weight: number = WEIGHT.asciiClass
    if (this.p[this.i] === '^') {
      weight = WEIGHT.wide
      this.i++
    }
    // A `]` first in the class is a member, not its end.
    if (this.p[this.i] === ']') this.i++
    while (this.i < this.p.length && this.p[this.i] !== ']') {
      const posix = /^\[:\^?[a-z]+:\]/.exec(this.p.slice(this.i))
      if (posix) {
        this.i += posix[0].length
        if (posix[0][2] === '^') weight = Math.max(weight, WEIGHT.wide)
        continue
      }
      if (this.p[this.i] === '\\') {
        const member = this.escape(true)
        weight = Math.max(weight, member.weight === WEIGHT.ascii ? WEIGHT.asciiClass : member.weight)
        continue
      }
      const code = this.p.codePointAt(this.i) as number
      this.i += code > 0xffff ? 2 : 1
      if (code >= 0x80) weight = Math.max(weight, WEIGHT.wide)
    }
    this.i++ // ]
    return weight
  }

  /** An escape at `i` (a backslash): its weight, as an atom or, `inClass`, as a class member. */
  private escape(inClass: boolean): { weight: number } {
    const p = this.p
    const c = p[this.i + 1]
    this.i += 2
    if (c === undefined) return { weight: WEIGHT.ascii }
    if (c in PERL_CLASSES) return { weight: PERL_CLASSES[c] as number }
    if (c === 'p' || c === 'P') {
      if (p[this.i] === '{') {
        const end = p.indexOf('}', this.i)
        this.i = end < 0 ? p.length : end + 1
      } else this.i++
      return { weight: WEIGHT.property }
    }
    if (!inClass && EMPTY_WIDTH.has(c)) return { weight: WEIGHT.ascii }
    if (!inClass && c === 'Q') {
      // \Q...\E: every character up to \E (or the end) is a literal.
      const end = p.indexOf('\\E', this.i)
      const text = p.slice(this.i, end < 0 ? p.length : end)
      this.i = end < 0 ? p.length : end + 2
      let cost = 0
      for (const ch of text) cost += literalWeight(ch.codePointAt(0) as number)
      return { weight: cost }
    }
    // \x{...}, \u{...}, \xHH, \uHHHH, \cX, octal, \C and escaped punctuation: one character,
    // weighed as the widest literal (its value is not worth decoding for an upper bound).
    if ((c === 'x' || c === 'u') && p[this.i] === '{') {
      const end = p.indexOf('}', this.i)
      this.i = end < 0 ? p.length : end + 1
    } else if (c === 'x') this.i += 2
    else if (c === 'u') this.i += 4
    else if (c === 'c') this.i += 1
    else if (c >= '0' && c <= '7') for (let digits = 1; digits < 3 && /[0-7]/.test(p[this.i] ?? ''); digits++) this.i++
    if (c === 'x' || c === 'u' || (c >= '0' && c <= '7')) return { weight: inClass ? WEIGHT.wide : 4 }
    const code = p.codePointAt(this.i - 1) as number
    if (code > 0xffff) this.i++
    return { weight: literalWeight(code) }
  }
}

/** The pattern's estimated cost per character of text (see the top of this file). */
export function patternCost(pattern: string): number {
  return new Scanner(pattern).pattern()
}

/**
 * Why RE2 would take too long per note for `pattern` (the 400's message after "query is too
 * complex: "), or undefined when its cost is within MAX_PATTERN_COST.
 */
export function tooComplex(pattern: string): string | undefined {
  const cost = patternCost(pattern)
  if (cost <= MAX_PATTERN_COST) return undefined
  return `its estimated cost is ${Math.ceil(cost)} (at most ${MAX_PATTERN_COST}); large counted repetitions such as {1000} multiply the cost of what they repeat`
}
