// Whether what the web app shows stays inside its boxes sideways: a long unbroken word (a URL, a
// hash) must wrap, be cut with an ellipsis, or scroll inside a box made to scroll, never stick
// out of its card, dialog or panel, and the page must never scroll sideways.
import type { Page } from 'playwright-core'

/** The few browser types the page script below uses (the tests compile without the DOM library). */
interface Rect {
  left: number
  right: number
  width: number
}
interface LayoutElement {
  readonly tagName: string
  readonly className: unknown
  readonly children: ArrayLike<LayoutElement>
  readonly scrollWidth: number
  readonly clientWidth: number
  getBoundingClientRect(): Rect
  getClientRects(): ArrayLike<Rect>
  matches(selector: string): boolean
}
interface LayoutWindow {
  document: { documentElement: LayoutElement; querySelectorAll(selector: string): ArrayLike<LayoutElement> }
  getComputedStyle(element: LayoutElement): {
    display: string
    whiteSpace: string
    textOverflow: string
    clip: string
    clipPath: string
  }
}

/**
 * What sticks out sideways inside each element matching `selector`, described for an assertion
 * message ([] when nothing does): a descendant whose box reaches past the element's edges, or
 * whose content is wider than its own box. Left out, as cut or scrolled on purpose: a one-line
 * text cut with an ellipsis (white-space: nowrap and text-overflow: ellipsis) and what matches
 * `scrollers` (such as a code block that scrolls sideways, or an input, whose text scrolls inside
 * it), whose own box must still fit; and anything visually hidden (clipped to nothing).
 */
export function sidewaysOverflow(page: Page, selector: string, scrollers = ''): Promise<string[]> {
  // No named function inside the page script: tsx's transform would wrap it in a helper that
  // exists in Node only. Hence the explicit stack rather than a recursive visit.
  return page.evaluate(
    ({ selector, scrollers }) => {
      const w = globalThis as unknown as LayoutWindow
      const found: string[] = []
      const roots = Array.from(w.document.querySelectorAll(selector))
      if (roots.length === 0) found.push(`nothing matches ${selector}`)
      for (const root of roots) {
        const box = root.getBoundingClientRect()
        const stack: Array<{ el: LayoutElement; path: string }> = [{ el: root, path: '' }]
        while (stack.length > 0) {
          const { el, path } = stack.pop()!
          const classes = typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean) : []
          const here = path
            ? `${path} > ${[el.tagName.toLowerCase(), ...classes].join('.')}`
            : `${[el.tagName.toLowerCase(), ...classes].join('.')}`
          const style = w.getComputedStyle(el)
          if (style.display === 'none' || style.clip !== 'auto' || style.clipPath !== 'none') continue
          if (el !== root) {
            for (const rect of Array.from(el.getClientRects())) {
              if (rect.width > 0 && (rect.left < box.left - 1 || rect.right > box.right + 1)) {
                found.push(
                  `${here}: reaches ${Math.round(Math.max(box.left - rect.left, rect.right - box.right))}px past its ${selector}`,
                )
                break
              }
            }
            const cut = style.whiteSpace === 'nowrap' && style.textOverflow === 'ellipsis'
            if (cut || (scrollers && el.matches(scrollers))) continue
          }
          if (style.display !== 'inline' && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) {
            found.push(`${here}: its content is ${el.scrollWidth - el.clientWidth}px wider than it`)
          }
          for (const child of Array.from(el.children)) stack.push({ el: child, path: here })
        }
      }
      return found
    },
    { selector, scrollers },
  )
}

/** How far the page scrolls sideways: 0 when nothing is wider than the window. */
export function pageSidewaysScroll(page: Page): Promise<number> {
  return page.evaluate(() => {
    const { documentElement } = (globalThis as unknown as LayoutWindow).document
    return documentElement.scrollWidth - documentElement.clientWidth
  })
}
