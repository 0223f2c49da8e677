// YAML front matter of Markdown files: split from the text, read with limits (a few aliases, so an alias bomb fails
// fast), and written so that every value stays on its own line and reads back as exactly the same string.
import { parse, stringify } from 'yaml'

/** The text's front matter, unparsed, and what follows it; `yaml` is undefined when the text has none. */
export interface SplitText {
  yaml: string | undefined
  body: string
}

// A front matter block opens on the file's first line with `---` and closes with `---` or `...` on a line of its own.
const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?\r?\n)?(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/

export function splitFrontMatter(text: string): SplitText {
  const match = FRONT_MATTER.exec(text)
  if (!match) return { yaml: undefined, body: text }
  return { yaml: match[1] ?? '', body: text.slice(match[0].length) }
}

/** Few aliases suffice for any real front matter; more is an attempt to expand a small file into a huge one. */
const MAX_ALIASES = 20

/** The front matter's mapping, or a problem saying why it cannot be read. */
export function parseFrontMatter(yaml: string): { properties: Record<string, unknown> } | { problem: string } {
  let value: unknown
  try {
    value = parse(yaml, { maxAliasCount: MAX_ALIASES, schema: 'core', uniqueKeys: false, prettyErrors: false })
  } catch (err) {
    return { problem: `its front matter is not readable YAML (${(err as Error).message.split('\n')[0]})` }
  }
  if (value === null || value === undefined) return { properties: {} }
  if (typeof value !== 'object' || Array.isArray(value)) return { problem: 'its front matter is not a YAML mapping' }
  return { properties: value as Record<string, unknown> }
}

/** `properties` as a front matter block, `---` lines included; values in double quotes when plain would not do. */
export function frontMatter(properties: Record<string, unknown>): string {
  const yaml = stringify(properties, {
    lineWidth: 0,
    minContentWidth: 0,
    blockQuote: false,
    defaultKeyType: 'PLAIN',
    schema: 'core',
  })
  return `---\n${yaml}---\n`
}
