// Where a search's pattern matches in a note's text, for marking it in the cards shown as results.
// Pure (no DOM): the callers turn the ranges into React elements or DOM text nodes, never into
// HTML, so nothing in the pattern or the note becomes markup. Matched as the API matches
// (docs/search.md): case-insensitively and by code point (flags `giu`). The work is bounded: a
// pattern this browser could backtrack on for too long is not highlighted at all (the same guard
// as the offline search), only the start of a long text is looked at, and a card holds at most
// MARKS_PER_CARD marks. Unit-tested in test/web-highlight.test.ts.
import { backtracksBadly } from './search.js'

/** The most marks one card shows, title and content together: a pattern such as `.` marks each character. */
export const MARKS_PER_CARD = 100

/**
 * Highlighting looks at this many characters of one text, as many as a card shows of a note's
 * content (markdown.ts, `preview`) and more than its two lines of title: a pattern the guard lets
 * through may still be quadratic in the text's length (`a.*y`), so each character more costs more
 * than the one before.
 */
export const HIGHLIGHT_LIMIT = 1_200

export interface Range {
  start: number
  end: number
}

export interface Segment {
  text: string
  marked: boolean
}

/**
 * The expression that finds a pattern's matches, or undefined when it is not highlighted: no
 * pattern, a pattern shaped for catastrophic backtracking, or one JavaScript cannot compile with
 * the `u` flag (RE2's own forms, such as `(?i)`, `\pL` or `[[:alpha:]]`). The API has already
 * chosen the notes; this only marks where their text matches.
 */
export function highlighter(pattern: string | undefined): RegExp | undefined {
  if (!pattern || backtracksBadly(pattern)) return undefined
  try {
    return new RegExp(pattern, 'giu')
  } catch {
    return undefined
  }
}

const isLeadSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff
const isTrailSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff

/** The index of the code point after the one at `index`. */
function nextCodePoint(text: string, index: number): number {
  return isLeadSurrogate(text.charCodeAt(index)) && isTrailSurrogate(text.charCodeAt(index + 1)) ? index + 2 : index + 1
}

/** The first `limit` UTF-16 units of `text`, one fewer rather than half of a surrogate pair. */
function head(text: string, limit: number): string {
  if (text.length <= limit) return text
  return text.slice(0, isLeadSurrogate(text.charCodeAt(limit - 1)) ? limit - 1 : limit)
}

/**
 * The non-empty matches of `expression` in the first `limit` characters of `text`, in order, none
 * overlapping, at most `maxMarks` of them. An empty match (`a*` between two b's) marks nothing
 * and the search goes on from the next code point, so it never stops in half of an emoji.
 */
export function matchRanges(
  text: string,
  expression: RegExp | undefined,
  maxMarks = MARKS_PER_CARD,
  limit = HIGHLIGHT_LIMIT,
): Range[] {
  if (!expression || !text || maxMarks <= 0) return []
  const re = new RegExp(expression.source, expression.flags.includes('g') ? expression.flags : `${expression.flags}g`)
  const subject = head(text, limit)
  const ranges: Range[] = []
  for (let from = 0; from <= subject.length && ranges.length < maxMarks;) {
    re.lastIndex = from
    const match = re.exec(subject)
    // An engine that moved back before `from` would search the same place again.
    if (!match || match.index < from) break
    const end = match.index + match[0].length
    if (end > match.index) {
      ranges.push({ start: match.index, end })
      from = end
    } else {
      from = nextCodePoint(subject, match.index)
    }
  }
  return ranges
}

/** `text` cut at the ranges' edges: the pieces, in order, joined, are `text` itself. */
export function segments(text: string, ranges: readonly Range[]): Segment[] {
  const pieces: Segment[] = []
  let at = 0
  for (const { start, end } of ranges) {
    if (start > at) pieces.push({ text: text.slice(at, start), marked: false })
    pieces.push({ text: text.slice(start, end), marked: true })
    at = end
  }
  if (at < text.length) pieces.push({ text: text.slice(at), marked: false })
  return pieces
}
