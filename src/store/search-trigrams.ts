// The one place for the case rules of search's index (docs/search.md, "Case folding"). RE2 folds case by Unicode's
// simple case folding; SQLite's trigram tokenizer and PostgreSQL's NOTE_TEXT_FOLDED agree with it on printable ASCII
// once KELVIN SIGN and LONG S fold onto k and s, so an index query holds printable ASCII only.

/** The shortest literal the index can look up: one trigram. */
export const INDEXED_MIN_LENGTH = 3

/** `c` (one character) as the index holds it, or undefined when the index query may not use it. */
export function foldIndexed(c: string): string | undefined {
  const code = c.codePointAt(0) ?? 0
  if (c.length !== 1 || code < 0x20 || code > 0x7e) return undefined
  return c.toLowerCase()
}

/**
 * A note's text as PostgreSQL's index holds it: lower() folds ASCII in every collation but a Turkish one (FOLDS_ASCII
 * checks), replace() folds K and ſ in every one. translate() would need no check but costs 8 times as much a row.
 */
export const NOTE_TEXT_FOLDED = `replace(replace(lower(title || E'\\n' || content), '\u017f', 's'), '\u212a', 'k')`

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'

/** True where the database's lower() folds ASCII letters as RE2 does. */
export const FOLDS_ASCII = `lower('${UPPER}') = '${UPPER.toLowerCase()}'`

/** Notes whose folded text contains `literal` (printable ASCII, folded, at least INDEXED_MIN_LENGTH long), and AND and OR of such. */
export type SearchPlan = { literal: string } | { and: SearchPlan[] } | { or: SearchPlan[] }

/** The trigrams looked up for one literal: a few spread over it narrow about as well as all of them. */
const MAX_TRIGRAMS = 12

function trigramsOf(literal: string): string[] {
  const all = [...new Set(Array.from({ length: literal.length - 2 }, (_, i) => literal.slice(i, i + 3)))]
  if (all.length <= MAX_TRIGRAMS) return all
  return Array.from(
    { length: MAX_TRIGRAMS },
    (_, i) => all[Math.round((i * (all.length - 1)) / (MAX_TRIGRAMS - 1))] as string,
  )
}

/** The plan in a query language, each literal written by `literal`, and AND and OR as both stores write them. */
function rendered(plan: SearchPlan, literal: (text: string) => string): string {
  if ('literal' in plan) return literal(plan.literal)
  return `(${('and' in plan ? plan.and : plan.or).map((p) => rendered(p, literal)).join('and' in plan ? ' AND ' : ' OR ')})`
}

/** The plan as an FTS5 query of note_text: detail=none has no phrases, so a literal is the AND of its trigrams. */
export const ftsQuery = (plan: SearchPlan): string =>
  rendered(
    plan,
    (literal) =>
      `(${trigramsOf(literal)
        .map((t) => `"${t.replaceAll('"', '""')}"`)
        .join(' AND ')})`,
  )

/** The plan as a PostgreSQL condition on NOTE_TEXT_FOLDED, each LIKE pattern written by `quote` as an SQL literal. */
export const likeCondition = (plan: SearchPlan, quote: (text: string) => string): string =>
  rendered(plan, (literal) => `${NOTE_TEXT_FOLDED} LIKE ${quote(`%${literal.replace(/[\\%_]/g, '\\$&')}%`)}`)
