// Search patterns run on RE2, a linear-time regular-expression engine, so no pattern can hang
// the server (decisions.md: "Search cannot hang the server"). RE2 refuses the features that need
// backtracking (back-references, look-around); such patterns get 400, as do invalid ones.
import RE2 from 're2'
import { badRequest } from '../errors.js'
import type { TextMatcher } from '../store/types.js'
import { containsFolded, requiredRuns } from './search-prefilter.js'

export const MAX_QUERY_LENGTH = 500

export function compileSearchPattern(query: string): TextMatcher {
  if (query.length > MAX_QUERY_LENGTH) {
    throw badRequest(`query must be at most ${MAX_QUERY_LENGTH} characters`)
  }
  let re: RE2
  try {
    // 'i': case-insensitive, as the specification says; 'u': match by code point, not UTF-16 unit.
    re = new RE2(query, 'iu')
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err)
    throw badRequest(`query is not a supported regular expression: ${why}`)
  }
  // Notes lacking the runs of characters every match needs are rejected before RE2 is called.
  const runs = requiredRuns(query)
  if (runs === undefined) return { test: (text) => re.test(text) }
  return { runs, test: (text) => containsFolded(text, runs) && re.test(text) }
}
