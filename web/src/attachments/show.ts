// Fills the attachment slots of a rendered note (markdown.ts makes them, after DOMPurify): a
// picture from a blob: URL, another file as a chip that downloads it, a file the server no longer
// has as a small "file not found" chip. A chunk of its own, loaded when a note has a slot.
// Everything is made as elements and text: nothing of the note, the name included, is parsed.
import { describeType, formatBytes } from './format'
import { type Shown, type Who, acquire, download } from './files'
import { attachmentOf } from './links'
import type { ThumbnailWidth } from './urls'
import './attachments.css'
import { saveDownload } from '../save-download'

const SVG = 'http://www.w3.org/2000/svg'

function fileIcon(): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg')
  svg.setAttribute('viewBox', '0 0 24 24')
  svg.setAttribute('width', '18')
  svg.setAttribute('height', '18')
  svg.setAttribute('aria-hidden', 'true')
  svg.setAttribute('class', 'attachment-icon')
  const path = document.createElementNS(SVG, 'path')
  path.setAttribute('d', 'M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8l-5-5Zm0 0v5h5')
  svg.append(path)
  return svg
}

function span(className: string, text: string): HTMLSpanElement {
  const element = document.createElement('span')
  element.className = className
  element.textContent = text
  return element
}

/** The name and the facts as one run of text, which wraps as text does when the chip is narrow. */
function label(name: string, facts: HTMLElement): HTMLSpanElement {
  const text = span('attachment-text', '')
  text.append(span('attachment-name', name), ' ', facts)
  return text
}

interface Slot {
  element: HTMLElement
  id: string
  name: string | undefined
  label: string
}

function chip(slot: Slot, who: Who, type: string | undefined, size: number | undefined): HTMLElement {
  const name = slot.name ?? slot.label
  const facts = [describeType(type), size !== undefined ? formatBytes(size) : undefined].filter(Boolean).join(' · ')
  const button = document.createElement('button')
  button.type = 'button'
  button.className = 'attachment-chip'
  button.title = `Download ${name}`
  const factsText = span('attachment-facts', facts)
  button.append(fileIcon(), label(name, factsText))
  button.addEventListener('click', () => {
    button.disabled = true
    factsText.textContent = 'Downloading…'
    void download(who, slot.id, slot.name)
      .catch(() => 0)
      .then((got) => {
        button.disabled = false
        if (got instanceof Blob) {
          factsText.textContent = facts
          saveDownload(got, name)
        } else {
          factsText.textContent = got === 404 ? 'File not found' : 'Could not be downloaded: check your connection'
        }
      })
  })
  return button
}

function notice(slot: Slot, text: string, className: string): HTMLElement {
  const element = span(`attachment-chip ${className}`, '')
  element.append(fileIcon(), label(slot.name ?? slot.label, span('attachment-facts', text)))
  return element
}

function fill(slot: Slot, shown: Shown, who: Who): void {
  const { element } = slot
  element.classList.remove('loading')
  switch (shown.kind) {
    case 'picture': {
      const img = document.createElement('img')
      img.alt = slot.label
      img.src = shown.src
      element.classList.add('attachment-picture')
      element.replaceChildren(img)
      return
    }
    case 'file':
      element.replaceChildren(chip(slot, who, shown.type, shown.size))
      return
    case 'missing':
      element.replaceChildren(notice(slot, 'File not found', 'missing'))
      return
    case 'unavailable':
      element.replaceChildren(
        notice(slot, navigator.onLine ? 'Could not be loaded' : 'Not available offline', 'missing'),
      )
  }
}

/** Fills the slots under `root` (pictures at `width`); the returned function lets them go. */
export function showAttachments(root: HTMLElement, who: Who, width: ThumbnailWidth): () => void {
  let live = true
  const releases: Array<() => void> = []
  const load = (slot: Slot) => {
    const held = acquire(who, slot.id, slot.name, slot.element.dataset.kind === 'IMG' ? 'image' : 'file', width)
    releases.push(held.release)
    void held.shown.then((shown) => {
      if (!live) return
      fill(slot, shown, who)
      // What could not be loaded is tried again when the network returns.
      if (shown.kind === 'unavailable') window.addEventListener('online', () => live && load(slot), { once: true })
    })
  }
  for (const element of Array.from(root.querySelectorAll<HTMLElement>('[data-attachment]'))) {
    // Any other path under /attachments/ stays its label.
    const link = attachmentOf(element.dataset.attachment ?? '')
    if (!link) continue
    element.classList.add('attachment', 'loading')
    load({ element, id: link.id, name: link.name, label: element.textContent ?? '' })
  }
  return () => {
    live = false
    for (const release of releases) release()
  }
}
