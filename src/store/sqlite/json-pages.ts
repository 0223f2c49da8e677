// A listing's JSON pages joined into one answer (notes.ts reads a long listing a page at a time).

/** A page as SQLite hands it over: the notes and their ids as JSON arrays, and how many. */
export type JsonPageRow = { notes: string; ids: string; n: number }

/** Joins the JSON pages of one answer. A note re-pinned between pages may come twice: only such a page is parsed to drop it. */
export class JsonPages {
  private readonly parts: string[] = []
  private seen: Set<string> | undefined
  private first: JsonPageRow | undefined

  add(page: JsonPageRow): void {
    if (page.n === 0) return
    if (!this.first) {
      this.first = page
      this.parts.push(page.notes)
      return
    }
    this.seen ??= new Set(JSON.parse(this.first.ids) as string[])
    const ids = JSON.parse(page.ids) as string[]
    let notes = page.notes
    if (ids.some((id) => this.seen?.has(id))) {
      const all = JSON.parse(notes) as unknown[]
      const fresh = all.filter((_, i) => !this.seen?.has(ids[i] as string))
      notes = JSON.stringify(fresh)
    }
    if (notes.length > 2) this.parts.push(notes)
    for (const id of ids) this.seen.add(id)
  }

  /** Joined with `+`: V8 keeps a tree of slices until the text is written, so it is copied once. */
  json(): string {
    if (this.parts.length === 0) return '[]'
    if (this.parts.length === 1) return this.parts[0] as string
    let json = ''
    this.parts.forEach((part, i) => {
      json += i === 0 ? part.slice(0, -1) : part.slice(1, -1)
      json += i === this.parts.length - 1 ? ']' : ','
    })
    return json
  }
}
