// Types for the scripts the browser tests run inside pages (page.evaluate, addInitScript). The
// tests compile with Node's types and without TypeScript's DOM library, whose fetch and Response
// clash with Node's; these are the few browser globals those scripts use, typed for them alone.
// In a page script: `const { document } = globalThis as unknown as PageWindow` (only the types are
// the test's: the function is sent as source text and runs in the browser, so it cannot call
// anything imported here).

export interface PageElement {
  readonly tagName: string
  readonly textContent: string | null
  readonly attributes: ArrayLike<{ name: string; value: string }>
  getAttribute(name: string): string | null
  closest(selector: string): PageElement | null
  matches(selector: string): boolean
  querySelectorAll(selector: string): ArrayLike<PageElement>
}

export interface PageStyle {
  outlineStyle: string
  outlineWidth: string
  boxShadow: string
  backgroundColor: string
  color: string
}

export interface PageDocument {
  readonly activeElement: PageElement | null
  readonly body: PageElement
  querySelector(selector: string): PageElement | null
  querySelectorAll(selector: string): ArrayLike<PageElement>
  addEventListener(type: string, listener: (event: Record<string, unknown>) => void): void
  readonly documentElement: { dataset: Record<string, string | undefined> }
  readonly scripts: ArrayLike<PageElement>
  dispatchEvent(event: Event): boolean
}

export interface PageWindow {
  document: PageDocument
  localStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void }
  getComputedStyle(element: PageElement): PageStyle
  performance: { now(): number; getEntriesByType(type: string): Array<{ name: string; startTime: number }> }
  navigator: { serviceWorker: { controller: object | null } }
  fetch(url: string): Promise<{ status: number }>
  caches: { keys(): Promise<string[]>; open(name: string): Promise<{ keys(): Promise<Array<{ url: string }>> }> }
  /** Set by the XSS payloads, should any ever run. */
  __xss?: number
}
