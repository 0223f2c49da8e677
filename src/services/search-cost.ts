// An upper bound of one RE2 call's cost per character of text, read from the parsed pattern (docs/search.md, "The cost
// bound"): a native call cannot be interrupted, so a costlier pattern is refused before it runs. In doubt it over-counts.
import regjsparser from 'regjsparser'
import type { AstNode } from 'regjsparser'

export const MAX_PATTERN_COST = 1000

/** What each element costs RE2's NFA per character, relative to a case-folded ASCII literal (docs/search.md's table). */
const WEIGHT = { asciiClass: 2, wide: 6, property: 50, branch: 1, capture: 2 } as const

/** RE2's syntax that JavaScript's u mode refuses, matched whole from left to right so that nothing is read twice. */
const RE2_ONLY = new RegExp(
  [
    String.raw`\\Q(?<quoted>[\s\S]*?)(?:\\E|$)|\\(?<punctuation>[!-/:-@[-\x60{-~])`, // literal text: `\Q…\E`, `\-`, `\@`
    String.raw`\[:(?<posix>\^?)[a-z]+:\]|\(\?[a-zA-Z-]*(?<flagsEnd>[:)])|\(\?P<`, // a POSIX class, flags, a named group
    String.raw`\\[pP](?<property>\{[^}]*\}|[\s\S]|$)|\\[xu]\{(?<codePoint>[^}]*)\}`, // `\pL`, `\p{Greek}`, `\x{41}`
    String.raw`(?<classStart>\[\^?)(?<classBody>\]?(?:\[:\^?[a-z]+:\]|\\[\s\S]|[^\]\\])*)\]`, // a whole class: `]` first is a member
    String.raw`\\[\s\S]|\{\d+(?:,\d*)?\}|(?<literal>[{}\]])`, // other escapes, repetitions, a lone `{`, `}` or `]`
  ].join('|'),
  'g',
)
const SAME_COST: Record<string, string> = { '\\A': '^', '\\z': '$', '\\C': '.', '(?P<': '(?<' }
const escaped = (text: string): string =>
  [...text].map((c) => `\\u{${(c.codePointAt(0) as number).toString(16)}}`).join('')

/**
 * The pattern in JavaScript's syntax, each element as costly as RE2 compiles it or costlier. What it reads as text
 * (a literal, `\Q…\E`, `\x{41}`, a class) it keeps exactly, so the search plan may read the result too.
 */
const asJavaScript = (pattern: string): string =>
  pattern.replace(RE2_ONLY, (match: string, ...rest: unknown[]) => {
    const g = rest.at(-1) as Record<string, string | undefined>
    const literal = g.quoted ?? g.punctuation ?? g.literal
    if (literal !== undefined) return escaped(literal)
    if (g.posix !== undefined) return g.posix ? '\\0-\\u{10FFFF}' : 'a-z' // ASCII, or every character when negated
    // Flags change no cost (search is always `i`); `(?i)` is an empty group, so that a `?` after it still adds 1.
    if (g.flagsEnd !== undefined) return g.flagsEnd === ':' ? '(?:' : '(?:)'
    if (g.property !== undefined) return '\\p{L}' // every property weighs the same
    if (g.codePoint !== undefined) return `\\u{${g.codePoint}}`
    if (g.classStart !== undefined)
      return `${g.classStart}${asJavaScript((g.classBody as string).replace(/^\]/, '\\]'))}]`
    return SAME_COST[match] ?? match
  })

export type PatternNode = AstNode<{ namedGroups: true; unicodePropertyEscape: true }>
type Node = PatternNode

/** A pattern and its tree (JavaScript's syntax with the u flag, RE2-only syntax rewritten); no tree when it does not parse. */
export interface ParsedPattern {
  source: string
  tree?: PatternNode
}

/** Parsed once per search: the cost bound and the plan read the same tree. */
export function parsePattern(source: string): ParsedPattern {
  try {
    return {
      source,
      tree: regjsparser.parse(asJavaScript(source), 'u', { namedGroups: true, unicodePropertyEscape: true }),
    }
  } catch {
    return { source }
  }
}

/** `pattern` parsed, unless it already is. */
export const parsed = (pattern: string | ParsedPattern): ParsedPattern =>
  typeof pattern === 'string' ? parsePattern(pattern) : pattern

/** Anchors and `\b` step once, as a literal; RE2 refuses back-references. A non-ASCII member makes a class wide. */
const FIXED = { dot: WEIGHT.wide, unicodePropertyEscape: WEIGHT.property, anchor: 1, reference: 1 } as const
const classWeight = (codePoint: number): number => (codePoint < 0x80 ? WEIGHT.asciiClass : WEIGHT.wide)
const sum = (nodes: Node[]): number => nodes.reduce((total, node) => total + costOf(node), 0)

function costOf(node: Node, inClass = false): number {
  switch (node.type) {
    case 'value': // the NFA steps once per byte
      return inClass ? classWeight(node.codePoint) : Buffer.byteLength(String.fromCodePoint(node.codePoint))
    case 'characterClassRange':
      return classWeight(node.max.codePoint)
    case 'characterClass': // one set of byte ranges for the NFA: it weighs its widest member
      return Math.max(
        node.negative ? WEIGHT.wide : WEIGHT.asciiClass,
        ...node.body.map((member) => costOf(member, true)),
      )
    case 'characterClassEscape':
      return 'dsw'.includes(node.value) ? WEIGHT.asciiClass : WEIGHT.wide
    case 'alternative':
      return sum(node.body)
    case 'disjunction':
      return sum(node.body) + (node.body.length - 1) * WEIGHT.branch
    case 'group':
      return sum(node.body) + (node.behavior === 'normal' ? WEIGHT.capture : 0)
    case 'quantifier': {
      // RE2 compiles X{n,m} as m copies, m-n of them optional, and X{n,} as n copies and a loop; `*`, `+`, `?` alike.
      const [x, { min, max }] = [costOf(node.body[0]), node]
      return max === undefined ? x * Math.max(min, 1) + WEIGHT.branch : x * max + (max - min) * WEIGHT.branch
    }
    default:
      return FIXED[node.type] // a type error when a kind of element is weighed nowhere
  }
}

/**
 * The cost of what parses neither way, an upper bound: no element weighs more than 50 per character it is written
 * with (a property, the costliest, takes 3), and a counted repetition X{n,m} at most m × (X + 1), its count times what
 * it repeats and its own characters. So 50 per character, times every count found, bounds the sum.
 */
function roughCost(pattern: string): number {
  const counts = [...pattern.matchAll(/\{(\d+)(?:,(\d*))?\}/g)].map(([, n, m]) =>
    Math.max(1, Number(n), Number(m || 0)),
  )
  return counts.reduce((product, count) => product * count, WEIGHT.property * pattern.length)
}

export function patternCost(pattern: string | ParsedPattern): number {
  const { source, tree } = parsed(pattern)
  const cost = tree ? costOf(tree) : roughCost(source)
  return Number.isFinite(cost) ? cost : Number.MAX_VALUE // counts multiplied past a double's range
}

/** The 400's message after "query is too complex: ", or undefined when the pattern is within the bound. */
export function tooComplex(pattern: string | ParsedPattern): string | undefined {
  const cost = patternCost(pattern)
  if (cost <= MAX_PATTERN_COST) return undefined
  return `its estimated cost is ${Math.ceil(cost)} (at most ${MAX_PATTERN_COST}); large counted repetitions such as {1000} multiply the cost of what they repeat`
}
