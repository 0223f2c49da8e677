// The editor's attachments: a file pasted, dropped or chosen is uploaded at once, with its progress
// shown, and its Markdown link takes the place of a placeholder put at the cursor when it started
// (`![Uploading photo.png…](#uploading-3)`), so the link lands where the person was, whatever they
// typed meanwhile. Offline, or when the network fails on the way, the file is kept on this device
// under a local id and the link names that; the outbox uploads it when it sends the note
// (attachments/pending.ts). A refusal (413 too large, 403 over the account's limit) removes the
// placeholder and shows the API's message.
import { type RefObject, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react'
import { ApiError, SessionEndedError, messageOf } from '../../api'
import { keepPending } from '../../attachments/file-store'
import { uploadWithProgress } from '../../attachments/upload'
import { isPicture, markdownLink } from '../../attachments/urls'
import { useSession, useSignedIn } from '../../session'

export interface Upload {
  key: number
  name: string
  sent: number
  total: number
  cancel: () => void
}

export interface Uploads {
  /** Those under way. */
  uploads: Upload[]
  /** The API's refusals, in sentences naming the file. */
  failures: Array<{ key: number; message: string }>
  dismiss: (key: number) => void
  attach: (files: readonly File[]) => void
}

/** A pasted picture has a generic name, or none: it gets one by its type. */
function nameOf(file: File): string {
  if (file.name) return file.name
  const extension = file.type.split('/')[1]?.replace('jpeg', 'jpg') ?? 'bin'
  return `pasted.${extension}`
}

const placeholderLabel = (name: string) => `Uploading ${name.replace(/[\\[\]]/g, '')}…`

export function useUploads(
  content: string,
  setContent: (content: string) => void,
  field: RefObject<HTMLTextAreaElement | null>,
): Uploads {
  const { token, user } = useSignedIn()
  const session = useSession()
  const [uploads, setUploads] = useState<Upload[]>([])
  const [failures, setFailures] = useState<Array<{ key: number; message: string }>>([])
  const next = useRef(1)
  const latest = useRef(content)
  latest.current = content
  /** Where the cursor goes once the text changed by an edit here is shown. */
  const selection = useRef<[number, number]>(undefined)
  const aborts = useRef(new Set<AbortController>())

  useLayoutEffect(() => {
    const wanted = selection.current
    const element = field.current
    if (!wanted || !element) return
    selection.current = undefined
    element.setSelectionRange(...wanted)
  }, [content, field])

  useEffect(() => {
    const running = aborts.current
    return () => running.forEach((abort) => abort.abort())
  }, [])

  /** Replaces content[from, to) with `text`, keeping the cursor where it was relative to the text around it. */
  const splice = useCallback(
    (from: number, to: number, text: string) => {
      const now = latest.current
      const element = field.current
      const [start, end] = element ? [element.selectionStart, element.selectionEnd] : [now.length, now.length]
      const moved = (at: number) => (at <= from ? at : at >= to ? at + text.length - (to - from) : from + text.length)
      const changed = now.slice(0, from) + text + now.slice(to)
      latest.current = changed
      selection.current =
        from === start && to === end ? [from + text.length, from + text.length] : [moved(start), moved(end)]
      setContent(changed)
    },
    [setContent, field],
  )

  const replace = useCallback(
    (placeholder: string, text: string) => {
      const at = latest.current.indexOf(placeholder)
      if (at >= 0) splice(at, at + placeholder.length, text)
    },
    [splice],
  )

  const fail = useCallback((key: number, message: string) => {
    setFailures((list) => [...list, { key, message }])
  }, [])

  const keepOffline = useCallback(
    async (key: number, file: File, name: string, placeholder: string) => {
      const id = `local-${crypto.randomUUID()}`
      const kept = await keepPending(user._id, { id, name, type: file.type, size: file.size, blob: file })
      if (kept) return replace(placeholder, markdownLink(id, name, isPicture(file.type)))
      replace(placeholder, '')
      fail(key, `“${name}” was not added: this device cannot keep it until you are back online.`)
    },
    [user._id, replace, fail],
  )

  /** Uploads `file`, whose placeholder is in the text (put there by `attach`). */
  const send = useCallback(
    (key: number, file: File, name: string, placeholder: string) => {
      if (!navigator.onLine) return void keepOffline(key, file, name, placeholder)
      const abort = new AbortController()
      aborts.current.add(abort)
      setUploads((list) => [...list, { key, name, sent: 0, total: file.size, cancel: () => abort.abort() }])
      const progress = (sent: number, total: number) =>
        setUploads((list) => list.map((u) => (u.key === key ? { ...u, sent, total: total || u.total } : u)))
      uploadWithProgress(token, file, name, progress, abort.signal)
        .then(
          (attachment) =>
            replace(placeholder, markdownLink(attachment._id, attachment.name, isPicture(attachment.type))),
          (err: unknown) => {
            // The network failed on the way: the file waits on this device, as offline.
            if (err instanceof ApiError && err.status === 0) return keepOffline(key, file, name, placeholder)
            replace(placeholder, '')
            if (err instanceof SessionEndedError) return session.ended()
            if (err instanceof DOMException && err.name === 'AbortError') return
            fail(key, `“${name}” was not uploaded: ${messageOf(err)}`)
          },
        )
        .finally(() => {
          aborts.current.delete(abort)
          setUploads((list) => list.filter((u) => u.key !== key))
        })
    },
    [token, replace, keepOffline, fail, session],
  )

  /** Puts the files' placeholders at the cursor, one a line, and sends each. */
  const attach = useCallback(
    (files: readonly File[]) => {
      if (files.length === 0) return
      const started = files.map((file) => {
        const key = next.current++
        const name = nameOf(file)
        const placeholder = `${isPicture(file.type) ? '!' : ''}[${placeholderLabel(name)}](#uploading-${key})`
        return { key, file, name, placeholder }
      })
      const now = latest.current
      const element = field.current
      const [from, to] = element ? [element.selectionStart, element.selectionEnd] : [now.length, now.length]
      // Without a cursor (the preview shows), the files go on a line of their own at the end.
      const before = !element && now && !now.endsWith('\n') ? '\n' : ''
      splice(from, to, before + started.map((s) => s.placeholder).join('\n'))
      for (const s of started) send(s.key, s.file, s.name, s.placeholder)
    },
    [field, splice, send],
  )

  return {
    uploads,
    failures,
    dismiss: (key) => setFailures((list) => list.filter((f) => f.key !== key)),
    attach,
  }
}
