// The URLs the app asks for an attachment at, and the Markdown that links a note to one.

/** A file's name as one URL segment; parentheses too, since one would end a Markdown link's destination. */
export const nameSegment = (name: string) => encodeURIComponent(name).replace(/\(/g, '%28').replace(/\)/g, '%29')

/** Where the file's bytes are: `/attachments/<id>/<name>` (the name is checked by the server), or by id alone. */
export const fileUrl = (id: string, name: string | undefined) =>
  name === undefined ? `/attachments/${id}` : `/attachments/${id}/${nameSegment(name)}`

/** The widths the server makes a picture's thumbnail at (WebP). */
export type ThumbnailWidth = 64 | 256 | 1024

export const thumbnailUrl = (id: string, width: ThumbnailWidth) => `/attachments/${id}/thumbnail?width=${width}`

/** Types shown as a picture in the page: raster images a browser decodes without running anything (not SVG). */
export const PICTURE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']
export const isPicture = (type: string) => PICTURE_TYPES.includes(type.split(';')[0]!.trim().toLowerCase())

/** Text of a Markdown link's label: brackets and backslashes escaped, line breaks as spaces. */
const label = (name: string) => name.replace(/[\r\n\t]+/g, ' ').replace(/[\\[\]]/g, '\\$&')

/** What the editor inserts: `![name](url)` for a picture, `[name](url)` for another file. */
export const markdownLink = (id: string, name: string, picture: boolean) =>
  `${picture ? '!' : ''}[${label(name)}](${fileUrl(id, name)})`
