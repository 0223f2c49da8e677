// The index query of a pattern (docs/search.md, "The index"): from the parsed pattern, the literals any match must
// contain, joined by AND and OR, after Russ Cox's "Regular Expression Matching with a Trigram Index". A note lacking
// them cannot match, so the store reads only the notes the index names; RE2 still decides each one. In doubt the
// plan is weaker, never wrong: what the parser does not know matches anything.
import type { CharacterClass } from 'regjsparser'
import { INDEXED_MIN_LENGTH, type SearchPlan, foldIndexed } from '../store/search-trigrams.js'
import { type ParsedPattern, type PatternNode, parsed } from './search-cost.js'

/** What a part of the pattern may match: the whole strings when few, else how they start and end and what they hold. */
interface Info {
  exact?: Set<string>
  prefix: Set<string>
  suffix: Set<string>
  /** undefined: no literal is required. */
  holds?: SearchPlan
}

/** Sets larger than this are given up: a larger OR narrows too little to pay for itself. */
const MAX_SET = 16
const MAX_CLASS = 8
const MAX_LITERALS = 64

const EMPTY: Info = { exact: new Set(['']), prefix: new Set(['']), suffix: new Set(['']) }
const ANY: Info = { prefix: new Set(['']), suffix: new Set(['']) }

const and = (a?: SearchPlan, b?: SearchPlan): SearchPlan | undefined =>
  a === undefined ? b : b === undefined ? a : { and: [...('and' in a ? a.and : [a]), ...('and' in b ? b.and : [b])] }

/** An OR is required only when each of its sides is. */
const or = (a?: SearchPlan, b?: SearchPlan): SearchPlan | undefined =>
  a === undefined || b === undefined ? undefined : { or: [...('or' in a ? a.or : [a]), ...('or' in b ? b.or : [b])] }

/** One of these strings: required only when every one is long enough for the index. */
function anyOf(strings: Iterable<string>): SearchPlan | undefined {
  const all = [...strings]
  if (all.length === 0 || all.some((s) => s.length < INDEXED_MIN_LENGTH)) return undefined
  return all.length === 1 ? { literal: all[0] as string } : { or: all.map((literal) => ({ literal })) }
}

function product(a: Set<string>, b: Set<string>): Set<string> | undefined {
  if (a.size * b.size > MAX_SET) return undefined
  const out = new Set<string>()
  for (const x of a) for (const y of b) out.add(x + y)
  return out
}

/** Either set's strings; past MAX_SET, the empty string, which every string starts and ends with. */
function union(a: Set<string>, b: Set<string>): Set<string> {
  const out = new Set([...a, ...b])
  return out.size > MAX_SET ? new Set(['']) : out
}

/** The same strings, described by their ends and their content rather than listed. */
function inexact(x: Info): Info {
  if (!x.exact) return x
  return { prefix: x.exact, suffix: x.exact, holds: and(x.holds, anyOf(x.exact)) }
}

function concat(x: Info, y: Info): Info {
  const both = x.exact && y.exact && product(x.exact, y.exact)
  if (both) return { exact: both, prefix: both, suffix: both, holds: and(x.holds, y.holds) }
  const [a, b] = [inexact(x), inexact(y)]
  const across = product(a.suffix, b.prefix)
  return {
    prefix: (x.exact && product(x.exact, b.prefix)) || a.prefix,
    suffix: (y.exact && product(a.suffix, y.exact)) || b.suffix,
    holds: and(and(a.holds, b.holds), across && anyOf(across)),
  }
}

function alternate(x: Info, y: Info): Info {
  if (x.exact && y.exact && x.exact.size + y.exact.size <= MAX_SET) {
    const exact = new Set([...x.exact, ...y.exact])
    return { exact, prefix: exact, suffix: exact, holds: or(x.holds, y.holds) }
  }
  const [a, b] = [inexact(x), inexact(y)]
  return { prefix: union(a.prefix, b.prefix), suffix: union(a.suffix, b.suffix), holds: or(a.holds, b.holds) }
}

/** One character from `codePoints`, folded, when they are few and all indexed. */
function oneOf(codePoints: Iterable<number>): Info {
  const folded = new Set<string>()
  for (const c of codePoints) {
    const f = foldIndexed(String.fromCodePoint(c))
    if (f === undefined || folded.add(f).size > MAX_CLASS) return ANY
  }
  return { exact: folded, prefix: folded, suffix: folded }
}

function classMembers(node: CharacterClass): number[] | undefined {
  if (node.negative) return undefined
  const members: number[] = []
  for (const part of node.body) {
    if (part.type === 'value') members.push(part.codePoint)
    else if (part.type === 'characterClassRange' && part.max.codePoint - part.min.codePoint < MAX_CLASS) {
      for (let c = part.min.codePoint; c <= part.max.codePoint; c++) members.push(c)
    } else return undefined
  }
  return members
}

function infoOf(node: PatternNode): Info {
  switch (node.type) {
    case 'value':
      return oneOf([node.codePoint])
    case 'characterClass': {
      const members = classMembers(node)
      return members ? oneOf(members) : ANY
    }
    case 'anchor':
      return EMPTY
    case 'alternative':
      return node.body.map(infoOf).reduce(concat, EMPTY)
    case 'disjunction':
      return node.body.map(infoOf).reduce(alternate)
    case 'group':
      // Look-around and back-references are refused by RE2; matching anything is the safe reading.
      return node.behavior === 'normal' || node.behavior === 'ignore'
        ? node.body.map(infoOf).reduce(concat, EMPTY)
        : ANY
    case 'quantifier': {
      const x = infoOf(node.body[0])
      if (node.min === 1 && node.max === 1) return x
      if (node.min === 0) return node.max === 1 ? alternate(x, EMPTY) : ANY
      // At least one copy: every match starts and ends like x and holds what x holds.
      return inexact(x)
    }
    default:
      return ANY
  }
}

/** The plan without repeats, and without literals another of the same AND implies (or of the same OR is implied by). */
function simplify(plan: SearchPlan): SearchPlan {
  if ('literal' in plan) return plan
  const isAnd = 'and' in plan
  const seen = new Map<string, SearchPlan>()
  for (const part of (isAnd ? plan.and : plan.or).map(simplify)) seen.set(JSON.stringify(part), part)
  const parts = [...seen.values()]
  const literals = parts.flatMap((p) => ('literal' in p ? [p.literal] : []))
  const kept = parts.filter(
    (p) =>
      !('literal' in p) ||
      !literals.some((other) => other !== p.literal && (isAnd ? other.includes(p.literal) : p.literal.includes(other))),
  )
  return kept.length === 1 ? (kept[0] as SearchPlan) : isAnd ? { and: kept } : { or: kept }
}

/** Bounds the SQL a plan becomes; a larger plan is given up (undefined: read every note). */
const literalCount = (plan: SearchPlan): number =>
  'literal' in plan ? 1 : ('and' in plan ? plan.and : plan.or).reduce((n, p) => n + literalCount(p), 0)

/** The plan of a pattern (parsed as search-cost.ts reads it), or undefined when no literal is required. */
export function searchPlan(pattern: string | ParsedPattern): SearchPlan | undefined {
  const root = parsed(pattern).tree
  if (!root) return undefined
  const info = infoOf(root)
  const plan = and(info.holds, info.exact && anyOf(info.exact))
  const simple = plan && simplify(plan)
  return simple && literalCount(simple) <= MAX_LITERALS ? simple : undefined
}
