// An upper bound of one RE2 call's cost per character of text, read from the pattern (docs/search.md, "The cost
// bound"): a native call cannot be interrupted, so a costlier pattern is refused before it runs. Loose reading over-counts.

export const MAX_PATTERN_COST = 1000

/** What each element costs RE2's NFA per character, relative to a case-folded ASCII literal (docs/search.md's table). */
const WEIGHT = { ascii: 1, asciiClass: 2, wide: 6, property: 50, branch: 1, capture: 2 } as const

/** A literal weighs its UTF-8 length (WEIGHT.ascii for ASCII): the NFA steps once per byte. */
const literalWeight = (codePoint: number): number => Buffer.byteLength(String.fromCodePoint(codePoint))

/** RE2's counted repetition; anything else after `{` is literal text. */
const REPEAT = /^\{(\d+)(,(\d*))?\}/

const PERL_CLASSES: Record<string, number> = { d: WEIGHT.asciiClass, s: WEIGHT.asciiClass, w: WEIGHT.asciiClass, D: WEIGHT.wide, S: WEIGHT.wide, W: WEIGHT.wide }
const EMPTY_WIDTH = new Set(['b', 'B', 'A', 'z'])

class Scanner {
  private i = 0
  constructor(private readonly p: string) {}

  pattern(): number {
    let cost = this.alternation()
    // A `)` without its `(`: RE2 refuses it, so counting it as a literal is enough.
    while (this.i < this.p.length) {
      this.i++
      cost += WEIGHT.ascii + this.alternation()
    }
    return cost
  }

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
    if (c === '\\') return this.escape(false)
    const code = this.codePoint()
    if (c === '.') return WEIGHT.wide
    if (c === '^' || c === '$') return WEIGHT.ascii
    return literalWeight(code)
  }

  private codePoint(): number {
    const code = this.p.codePointAt(this.i) as number
    this.i += code > 0xffff ? 2 : 1
    return code
  }

  private skipPast(close: string): number {
    const at = this.p.indexOf(close, this.i)
    const end = at < 0 ? this.p.length : at
    this.i = at < 0 ? end : at + close.length
    return end
  }

  private group(): number {
    this.i++
    let capture = true
    if (this.p[this.i] === '?') {
      const rest = this.p.slice(this.i)
      const named = /^\?P?<[^>]*>/.exec(rest)
      const flags = /^\?[a-zA-Z-]*([:)])/.exec(rest)
      if (named) this.i += named[0].length
      else if (flags) {
        this.i += flags[0].length
        // `(?i)` sets flags for the rest of the group and costs nothing itself.
        if (flags[1] === ')') return 0
        capture = false
      } else this.i++
    }
    const cost = this.alternation()
    if (this.p[this.i] === ')') this.i++
    return cost + (capture ? WEIGHT.capture : 0)
  }

  /** A class is one set of byte ranges for the NFA: it weighs its widest member. */
  private charClass(): number {
    this.i++
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
        weight = Math.max(weight, member === WEIGHT.ascii ? WEIGHT.asciiClass : member)
        continue
      }
      if (this.codePoint() >= 0x80) weight = Math.max(weight, WEIGHT.wide)
    }
    this.i++
    return weight
  }

  private escape(inClass: boolean): number {
    const p = this.p
    const c = p[this.i + 1]
    this.i += 2
    if (c === undefined) return WEIGHT.ascii
    if (c in PERL_CLASSES) return PERL_CLASSES[c] as number
    if (c === 'p' || c === 'P') {
      if (p[this.i] === '{') this.skipPast('}')
      else this.i++
      return WEIGHT.property
    }
    if (!inClass && EMPTY_WIDTH.has(c)) return WEIGHT.ascii
    if (!inClass && c === 'Q') return Buffer.byteLength(p.slice(this.i, this.skipPast('\\E')))
    // One character, weighed as the widest literal: its value is not worth decoding for an upper bound.
    if ((c === 'x' || c === 'u') && p[this.i] === '{') this.skipPast('}')
    else if (c === 'x') this.i += 2
    else if (c === 'u') this.i += 4
    else if (c === 'c') this.i += 1
    else if (c >= '0' && c <= '7') for (let digits = 1; digits < 3 && /[0-7]/.test(p[this.i] ?? ''); digits++) this.i++
    if (c === 'x' || c === 'u' || (c >= '0' && c <= '7')) return inClass ? WEIGHT.wide : 4
    const code = p.codePointAt(this.i - 1)
    if (code === undefined) return 4 // `\c` at the end
    if (code > 0xffff) this.i++
    return literalWeight(code)
  }
}

export const patternCost = (pattern: string): number => new Scanner(pattern).pattern()

/** The 400's message after "query is too complex: ", or undefined when the pattern is within the bound. */
export function tooComplex(pattern: string): string | undefined {
  const cost = patternCost(pattern)
  if (cost <= MAX_PATTERN_COST) return undefined
  return `its estimated cost is ${Math.ceil(cost)} (at most ${MAX_PATTERN_COST}); large counted repetitions such as {1000} multiply the cost of what they repeat`
}
