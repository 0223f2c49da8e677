// The SAX walk over one Evernote export (.enex): notes as raw fields, their resources decoded to scratch files as
// they stream. Nothing is held beyond one note's text; no DTD is read, and entities other than XML's own are refused.
import sax from 'sax'
import { MAX_SOURCE_NOTE_BYTES, MalformedImportError } from './items.js'
import { ResourceSink, type StoredResource } from './enex-resource.js'
import { Utf8Pieces } from './utf8-pieces.js'

export const EVERNOTE = 'Evernote'

/** The most characters kept of a short field (title, tag, date, mime, file name); Evernote's own limits are far lower. */
export const MAX_FIELD_CHARS = 64 * 1024

export interface ParsedResource {
  stored: Promise<StoredResource | undefined>
  mime: string
  fileName: string | undefined
}

/** One `<note>` as read: raw fields, and `problem` when it must be skipped. */
export interface ParsedNote {
  /** 1-based position in its file. */
  index: number
  title: string
  created: string | undefined
  updated: string | undefined
  tags: string[]
  enml: string
  resources: ParsedResource[]
  /** Scratch files written for it, finished or not. */
  sinks: ResourceSink[]
  problem: string | undefined
}

type Field = 'title' | 'created' | 'updated' | 'tag' | 'content' | 'mime' | 'file-name'

const NOTE_FIELDS: ReadonlySet<string> = new Set(['title', 'created', 'updated', 'tag', 'content'])

interface OpenResource {
  mime: string
  fileName: string | undefined
  sink: ResourceSink | undefined
}

/** Reads one file's bytes chunk by chunk; finished notes wait in `takeNotes()`. */
export class EnexParser {
  private readonly parser: sax.SAXParser
  private readonly decoder = new Utf8Pieces()
  private readonly stack: string[] = []
  private readonly finished: ParsedNote[] = []
  private note: ParsedNote | undefined
  private resource: OpenResource | undefined
  private field: Field | undefined
  private text = ''
  private contentBytes = 0
  private notes = 0
  private sawRoot = false
  private ending = false

  constructor(
    private readonly path: string,
    private readonly scratchDir: string,
    private readonly scratchName: () => string,
  ) {
    // strictEntities: only XML's five named entities; sax's default adds HTML's, which XML does not have.
    const options = { trim: false, normalize: false, position: true, strictEntities: true } as sax.SAXOptions
    const parser = sax.parser(true, options)
    parser.onerror = (err) => this.fail(err)
    parser.ondoctype = (doctype) => {
      if (doctype.includes('[')) this.refuseEntities()
    }
    // The parser reports declarations inside a DOCTYPE's internal subset (`<!ENTITY ...>`) as SGML declarations.
    parser.onsgmldeclaration = () => this.refuseEntities()
    parser.onopentag = (tag) => this.open(tag as sax.Tag)
    parser.onclosetag = (name) => this.close(name)
    parser.ontext = (text) => this.take(text)
    parser.oncdata = (text) => this.take(text)
    this.parser = parser
  }

  /** Parses a chunk; a note's invalid UTF-8 marks that note only. */
  write(chunk: Buffer): void {
    for (const piece of this.decoder.write(chunk)) {
      if (piece.invalid && this.note) this.note.problem ??= 'its text holds bytes that are not UTF-8'
      this.parser.write(piece.text)
      this.keepFlushing()
    }
  }

  /**
   * sax hands over a long text or CDATA in pieces of about 64 KiB, but once it has read a DOCTYPE it marks it by
   * setting its doctype buffer to `true`: that buffer's missing length makes its next buffer check NaN, and it never
   * checks again, so a resource's whole base64 text would pile up in one string. The marker goes back to an empty
   * buffer, and a check lost to NaN is scheduled again.
   */
  private keepFlushing(): void {
    const internals = this.parser as unknown as { doctype: unknown; bufferCheckPosition: number; position: number }
    if (internals.doctype === true) internals.doctype = ''
    if (Number.isNaN(internals.bufferCheckPosition)) internals.bufferCheckPosition = internals.position
  }

  /** The end of the file: a file cut short throws here. */
  end(): void {
    for (const piece of this.decoder.end()) {
      if (piece.invalid && this.note) this.note.problem ??= 'its text holds bytes that are not UTF-8'
      this.parser.write(piece.text)
    }
    this.ending = true
    this.parser.close()
    if (!this.sawRoot) throw new MalformedImportError(EVERNOTE, `"${this.path}" holds no <en-export> element`)
  }

  /** Waits while the resource being written catches up. */
  async drained(): Promise<void> {
    await this.resource?.sink?.drained()
  }

  takeNotes(): ParsedNote[] {
    return this.finished.splice(0)
  }

  /** Scratch files of a note still open when reading stops. */
  unfinishedSinks(): ResourceSink[] {
    return this.note?.sinks ?? []
  }

  private fail(err: Error): never {
    const problem = err.message.split('\n')[0] ?? err.message
    const where = `line ${this.parser.line + 1}, column ${this.parser.column + 1}`
    if (this.ending)
      throw new MalformedImportError(EVERNOTE, `"${this.path}" ends before its XML is complete (${problem}, ${where})`)
    throw new MalformedImportError(EVERNOTE, `"${this.path}" is not well-formed XML (${problem}, at ${where})`)
  }

  private refuseEntities(): never {
    throw new MalformedImportError(
      EVERNOTE,
      `"${this.path}" has a DOCTYPE that declares entities (an internal subset); it is refused`,
    )
  }

  private open(tag: sax.Tag): void {
    const name = tag.name
    const depth = this.stack.push(name)
    if (depth === 1) {
      if (name !== 'en-export')
        throw new MalformedImportError(EVERNOTE, `"${this.path}" is not an Evernote export (its root is <${name}>)`)
      this.sawRoot = true
      return
    }
    const parent = this.stack[depth - 2]
    if (depth === 2 && name === 'note') this.startNote()
    else if (depth === 3 && parent === 'note' && NOTE_FIELDS.has(name)) this.startField(name as Field)
    else if (depth === 3 && parent === 'note' && name === 'resource' && this.note)
      this.resource = { mime: '', fileName: undefined, sink: undefined }
    else if (depth === 4 && parent === 'resource' && this.resource) {
      if (name === 'mime') this.startField('mime')
      else if (name === 'data') this.startData()
    } else if (depth === 5 && parent === 'resource-attributes' && name === 'file-name' && this.resource)
      this.startField('file-name')
  }

  private startNote(): void {
    this.notes += 1
    this.note = {
      index: this.notes,
      title: '',
      created: undefined,
      updated: undefined,
      tags: [],
      enml: '',
      resources: [],
      sinks: [],
      problem: undefined,
    }
  }

  private startField(field: Field): void {
    this.field = field
    this.text = ''
    this.contentBytes = 0
  }

  private startData(): void {
    const note = this.note as ParsedNote
    const resource = this.resource as OpenResource
    if (resource.sink) return
    resource.sink = new ResourceSink(this.scratchDir, this.scratchName(), note.problem !== undefined)
    note.sinks.push(resource.sink)
  }

  private take(text: string): void {
    const top = this.stack[this.stack.length - 1]
    if (top === 'data' && this.resource?.sink && this.stack.length === 4) return this.resource.sink.write(text)
    if (this.field === undefined || !this.note) return
    if (this.field === 'content') {
      if (this.note.problem !== undefined) return
      this.contentBytes += Buffer.byteLength(text)
      if (this.contentBytes > MAX_SOURCE_NOTE_BYTES) {
        this.note.problem = `it is too large (its ENML has more than ${MAX_SOURCE_NOTE_BYTES} bytes)`
        this.text = ''
        return
      }
    } else if (this.text.length + text.length > MAX_FIELD_CHARS) {
      this.note.problem ??= `it is too large (its <${this.field}> has more than ${MAX_FIELD_CHARS} characters)`
      return
    }
    this.text += text
  }

  private close(name: string): void {
    this.stack.pop()
    const depth = this.stack.length
    if (depth === 1 && name === 'note' && this.note) {
      this.finished.push(this.note)
      this.note = undefined
      this.resource = undefined
    } else if (depth === 2 && this.note && this.field === name) this.endNoteField(name)
    else if (depth === 2 && name === 'resource' && this.note && this.resource) this.endResource(this.resource)
    else if (depth === 3 && this.resource && this.field === 'mime' && name === 'mime') {
      this.resource.mime = this.text.trim()
      this.field = undefined
    } else if (depth === 4 && this.resource && this.field === 'file-name' && name === 'file-name') {
      this.resource.fileName = this.text.trim()
      this.field = undefined
    }
  }

  private endNoteField(name: string): void {
    const note = this.note as ParsedNote
    const value = this.text
    this.field = undefined
    this.text = ''
    if (name === 'title') note.title = value.trim()
    else if (name === 'created') note.created = value.trim()
    else if (name === 'updated') note.updated = value.trim()
    else if (name === 'tag') {
      const tag = value.trim()
      if (tag !== '' && !note.tags.includes(tag)) note.tags.push(tag)
    } else if (name === 'content') note.enml = value
  }

  private endResource(resource: OpenResource): void {
    const note = this.note as ParsedNote
    this.resource = undefined
    if (!resource.sink) return
    const stored = resource.sink.finish()
    // Awaited when the note is turned into an item; a failure then is that note's, not an unhandled rejection.
    stored.catch(() => {})
    note.resources.push({ stored, mime: resource.mime, fileName: resource.fileName || undefined })
  }
}
