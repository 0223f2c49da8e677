// How the notes page's messages quote what the person wrote.

const QUOTED_MAX = 60

/**
 * A title or search quoted in a message, in quotation marks, cut to its first 60 characters: a
 * toast quoting a 1 000-character title would cover a phone's screen and push the API's message,
 * which follows the quote, out of sight.
 */
export function quoted(text: string): string {
  const characters = [...text]
  return `“${characters.length > QUOTED_MAX ? `${characters.slice(0, QUOTED_MAX).join('')}…` : text}”`
}
