// What changed between two texts, for a note's history: a longest common subsequence of lines
// (content) or of words (title). A few dozen lines, where a diff library would add kilobytes to a
// chunk that needs no patches, no fuzz and no unified format.

export interface Part {
  kind: 'same' | 'added' | 'removed'
  text: string
}

/**
 * Above this many cells (tokens of one side times the other, after the common start and end are
 * set aside) the middle shows as removed and added whole: the table would cost too much memory.
 */
const MAX_CELLS = 4_000_000

function push(parts: Part[], kind: Part['kind'], text: string): void {
  const last = parts[parts.length - 1]
  if (last?.kind === kind) last.text += text
  else if (text) parts.push({ kind, text })
}

/** `a` turned into `b`: runs of tokens kept, removed (only in a) and added (only in b). */
export function diffTokens(a: readonly string[], b: readonly string[]): Part[] {
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--
    endB--
  }
  const parts: Part[] = []
  push(parts, 'same', a.slice(0, start).join(''))
  const n = endA - start
  const m = endB - start
  if (n * m > MAX_CELLS) {
    push(parts, 'removed', a.slice(start, endA).join(''))
    push(parts, 'added', b.slice(start, endB).join(''))
  } else {
    // lengths[i * (m + 1) + j]: the longest common subsequence of a[start + i..] and b[start + j..].
    const lengths = new Uint32Array((n + 1) * (m + 1))
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lengths[i * (m + 1) + j] =
          a[start + i] === b[start + j]
            ? lengths[(i + 1) * (m + 1) + j + 1]! + 1
            : Math.max(lengths[(i + 1) * (m + 1) + j]!, lengths[i * (m + 1) + j + 1]!)
      }
    }
    let i = 0
    let j = 0
    while (i < n || j < m) {
      if (i < n && j < m && a[start + i] === b[start + j]) {
        push(parts, 'same', a[start + i]!)
        i++
        j++
      } else if (i < n && (j === m || lengths[(i + 1) * (m + 1) + j]! >= lengths[i * (m + 1) + j + 1]!)) {
        // Removals before additions where either keeps the subsequence longest: the old text reads first.
        push(parts, 'removed', a[start + i]!)
        i++
      } else {
        push(parts, 'added', b[start + j]!)
        j++
      }
    }
  }
  push(parts, 'same', a.slice(endA).join(''))
  return parts
}

/** Lines, each with a line break (the last one too: a text's final line break is no change to show). */
const lines = (text: string) =>
  text
    ? text
        .replace(/\n$/, '')
        .split('\n')
        .map((line) => `${line}\n`)
    : []
/** Words and the spaces between them. */
const words = (text: string) => text.match(/\s+|[^\s]+/g) ?? []

export const diffLines = (a: string, b: string) => diffTokens(lines(a), lines(b))
export const diffWords = (a: string, b: string) => diffTokens(words(a), words(b))

/** The tags only in `a`, only in `b`, and in both, each in its list's order. */
export function diffTags(
  a: readonly string[],
  b: readonly string[],
): { removed: string[]; added: string[]; kept: string[] } {
  return {
    removed: a.filter((t) => !b.includes(t)),
    added: b.filter((t) => !a.includes(t)),
    kept: b.filter((t) => a.includes(t)),
  }
}
