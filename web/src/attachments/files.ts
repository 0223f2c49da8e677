// Fetching an attachment as the page shows it: always with the token in the Authorization header
// (never in a URL), from the network first (an ETag the device already has makes it a 304), and
// from what this device kept (file-store.ts) when the network is not there. A picture shows from
// a blob: URL made here, shared by every place that shows the same one and revoked once none does.
import { type KeptFile, forgetAttachment, forgetFile, keepFile, keptFile, pendingUpload } from './file-store'
import { type ThumbnailWidth, fileUrl, isPicture, thumbnailUrl } from './urls'

/** Whose the files are: the signed-in token and its account. */
export interface Who {
  token: string
  userId: string
}

/** What a slot shows. */
export type Shown =
  | { kind: 'picture'; src: string }
  | { kind: 'file'; type: string | undefined; size: number | undefined }
  | { kind: 'missing' }
  | { kind: 'unavailable' }

/** A picture larger than this is not fetched whole to fill a slot (without a thumbnail): its chip shows. */
const PICTURE_BYTES = 25 * 2 ** 20

type Got =
  | { ok: true; blob: Blob; type: string; size: number }
  | { ok: false; status: number; type?: string | undefined; size?: number | undefined }

const UNREACHABLE = 0
const NOT_A_PICTURE = -1

const baseType = (type: string | null | undefined) => (type ?? '').split(';')[0]!.trim().toLowerCase()
const fromKept = (kept: KeptFile): Got => ({ ok: true, blob: kept.blob!, type: kept.type, size: kept.size })

/**
 * GET `url`; with `picture`, only a picture no larger than PICTURE_BYTES is read (otherwise its
 * type and size come back as NOT_A_PICTURE). What is read is kept for offline; a 404 forgets it.
 */
async function get(who: Who, url: string, picture: boolean): Promise<Got> {
  const kept = await keptFile(who.userId, url)
  const headers: Record<string, string> = { authorization: `Bearer ${who.token}` }
  if (kept?.blob && kept.etag) headers['if-none-match'] = kept.etag
  let response: Response
  try {
    response = await fetch(url, { headers })
  } catch {
    return kept?.blob ? fromKept(kept) : { ok: false, status: UNREACHABLE }
  }
  if (response.status === 304 && kept?.blob) return fromKept(kept)
  if (!response.ok) {
    void response.body?.cancel()
    if (response.status === 404) void forgetFile(who.userId, url)
    if (response.status >= 500 && kept?.blob) return fromKept(kept)
    return { ok: false, status: response.status }
  }
  const type = baseType(response.headers.get('content-type'))
  const length = Number(response.headers.get('content-length') ?? NaN)
  const size = Number.isFinite(length) ? length : undefined
  if (picture && (!isPicture(type) || (size ?? 0) > PICTURE_BYTES)) {
    void response.body?.cancel()
    return { ok: false, status: NOT_A_PICTURE, type, size }
  }
  let blob: Blob
  try {
    blob = new Blob([await response.blob()], { type })
  } catch {
    // The network failed in the middle of the bytes.
    return kept?.blob ? fromKept(kept) : { ok: false, status: UNREACHABLE }
  }
  const etag = response.headers.get('etag') ?? undefined
  void keepFile(who.userId, { url, blob, type, size: blob.size, ...(etag ? { etag } : {}) })
  return { ok: true, blob, type, size: blob.size }
}

/**
 * A file's type and size, kept for offline: a HEAD of its first byte, whose `Content-Range: bytes
 * 0-0/<size>` names the size (the HEAD's own Content-Length is of no body), and which sends no file.
 */
async function facts(who: Who, url: string): Promise<Got> {
  const key = `facts ${url}`
  let response: Response
  try {
    response = await fetch(url, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${who.token}`, range: 'bytes=0-0' },
    })
  } catch {
    const kept = await keptFile(who.userId, key)
    if (!kept) return { ok: false, status: UNREACHABLE }
    return {
      ok: false,
      status: NOT_A_PICTURE,
      type: kept.type || undefined,
      size: kept.size >= 0 ? kept.size : undefined,
    }
  }
  void response.body?.cancel()
  if (response.status !== 206 && response.status !== 200 && response.status !== 416) {
    if (response.status === 404) void forgetFile(who.userId, key)
    return { ok: false, status: response.status }
  }
  // A 416 is an empty file's (no first byte): its body is the error's, not the file's.
  const type = response.status === 416 ? undefined : baseType(response.headers.get('content-type')) || undefined
  const total = /\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1]
  const known = total !== undefined ? Number(total) : undefined
  void keepFile(who.userId, { url: key, type: type ?? '', size: known ?? -1 })
  return { ok: false, status: NOT_A_PICTURE, type, size: known }
}

// One blob: URL per picture shown, shared while anything shows it; revoked a while after the last
// place lets it go (a card drawn again keeps its picture without a new URL).
const REVOKE_AFTER_MS = 20_000
interface Shared {
  shown: Promise<Shown>
  refs: number
  timer?: ReturnType<typeof setTimeout>
}
const shared = new Map<string, Shared>()

/** Lets the shared answer of `key` go, revoking its picture's URL. */
function drop(key: string, entry: Shared): void {
  if (shared.get(key) === entry) shared.delete(key)
  void entry.shown.then((shown) => {
    if (shown.kind === 'picture') URL.revokeObjectURL(shown.src)
  })
}

/**
 * The attachment was deleted: what this page and this device keep of it goes, so nothing shows it
 * from memory or for offline. A picture still on screen keeps its URL until its place lets it go.
 */
export async function forget(who: Who, id: string): Promise<void> {
  for (const [key, entry] of shared)
    if (key.startsWith(`${who.userId} `) && key.includes(` ${id} `)) {
      if (entry.refs === 0) drop(key, entry)
      else shared.delete(key)
    }
  await forgetAttachment(who.userId, id)
}

function picture(blob: Blob): Shown {
  return { kind: 'picture', src: URL.createObjectURL(blob) }
}

function answerFor(got: Got, fallbackType?: string): Shown {
  if (got.ok) return isPicture(got.type) ? picture(got.blob) : { kind: 'file', type: got.type, size: got.size }
  if (got.status === NOT_A_PICTURE) return { kind: 'file', type: got.type ?? fallbackType, size: got.size }
  if (got.status === 404) return { kind: 'missing' }
  return { kind: 'unavailable' }
}

/** A picture: the thumbnail of `width`, else (with `whole`) the whole file when the server makes none (400, 404). */
async function loadPicture(
  who: Who,
  id: string,
  name: string | undefined,
  width: ThumbnailWidth,
  whole: boolean,
): Promise<Shown> {
  if (isLocal(id)) {
    const local = await pendingUpload(who.userId, id)
    if (local?.blob)
      return isPicture(local.type) ? picture(local.blob) : { kind: 'file', type: local.type, size: local.size }
    return local?.url ? answerFor(await get(who, local.url, true)) : { kind: 'missing' }
  }
  const thumbnail = await get(who, thumbnailUrl(id, width), true)
  if (thumbnail.ok || !whole) return answerFor(thumbnail)
  if (thumbnail.status === UNREACHABLE || thumbnail.status === 401 || thumbnail.status >= 500) {
    // Offline, the whole file may be what this device kept.
    const whole = await get(who, fileUrl(id, name), true)
    return whole.ok ? answerFor(whole) : answerFor(thumbnail)
  }
  return answerFor(await get(who, fileUrl(id, name), true))
}

/** A file added offline has a local id until the outbox uploads it; its bytes are on this device until then. */
const isLocal = (id: string) => id.startsWith('local-')

async function loadFile(who: Who, id: string, name: string | undefined): Promise<Shown> {
  if (isLocal(id)) {
    const local = await pendingUpload(who.userId, id)
    if (local?.blob) return { kind: 'file', type: local.type, size: local.size }
    return local?.url ? answerFor(await facts(who, local.url)) : { kind: 'missing' }
  }
  return answerFor(await facts(who, fileUrl(id, name)))
}

/**
 * What a slot shows, loaded once for every slot of the same attachment and size; `release` when
 * the slot goes. A picture that is not one (a PDF linked as an image) shows as its file's chip.
 * With `whole` false, a picture the server makes no thumbnail of is not fetched whole.
 */
export function acquire(
  who: Who,
  id: string,
  name: string | undefined,
  kind: 'image' | 'file',
  width: ThumbnailWidth,
  whole = true,
): { shown: Promise<Shown>; release: () => void } {
  const key = `${who.userId} ${kind} ${width} ${whole} ${id} ${name ?? ''}`
  let entry = shared.get(key)
  if (!entry) {
    const loaded = kind === 'image' ? loadPicture(who, id, name, width, whole) : loadFile(who, id, name)
    entry = { shown: loaded.catch((): Shown => ({ kind: 'unavailable' })), refs: 0 }
    shared.set(key, entry)
    // What could not be loaded is asked for again by the next slot that shows it.
    const loading = entry
    void loading.shown.then((shown) => {
      if (shown.kind === 'unavailable' && shared.get(key) === loading) shared.delete(key)
    })
  }
  const held = entry
  clearTimeout(held.timer)
  held.refs++
  let released = false
  return {
    shown: held.shown,
    release() {
      if (released) return
      released = true
      if (--held.refs > 0) return
      // Only a picture is worth keeping a while: a file's facts or a missing file is asked again.
      void held.shown.then((shown) => {
        if (held.refs > 0) return
        if (shown.kind !== 'picture' || shared.get(key) !== held) return drop(key, held)
        held.timer = setTimeout(() => held.refs === 0 && drop(key, held), REVOKE_AFTER_MS)
      })
    },
  }
}

/** The whole file, for a download: from the network, or what this device kept. */
export async function download(who: Who, id: string, name: string | undefined): Promise<Blob | number> {
  let url = fileUrl(id, name)
  if (isLocal(id)) {
    const local = await pendingUpload(who.userId, id)
    if (local?.blob) return local.blob
    if (!local?.url) return 404
    url = local.url
  }
  const got = await get(who, url, false)
  return got.ok ? got.blob : got.status
}
