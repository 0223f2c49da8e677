// Progress of a long transfer: on a terminal one line redrawn in place, elsewhere a plain line every few
// seconds. Notes go on their own lines, escaped: they quote the file, which may hold control characters.
import { escapeForTerminal } from '../unicode.js'

export const zeroCounts = () => ({ read: 0, imported: 0, skipped: 0, rejected: 0 })
type Counts = ReturnType<typeof zeroCounts>

const BAR_WIDTH = 24

export class Progress {
  private phase = { label: '', totalBytes: 0, bytesRead: () => 0 }
  private started = 0
  private lastDraw = 0
  private drawn = false
  private readonly tty: boolean
  private readonly now: () => number

  constructor(
    private readonly out: { write(text: string): unknown; isTTY?: boolean; columns?: number },
    options: { tty?: boolean; now?: () => number } = {},
  ) {
    this.tty = options.tty ?? Boolean(out.isTTY)
    this.now = options.now ?? Date.now
  }

  begin(label: string, totalBytes: number, bytesRead: () => number): void {
    this.phase = { label, totalBytes, bytesRead }
    this.started = this.now()
    this.lastDraw = this.started
  }

  /** Cheap to call per record: draws only when the interval has passed. */
  tick(counts: Counts): void {
    const t = this.now()
    if (t - this.lastDraw < (this.tty ? 100 : 5000)) return
    this.lastDraw = t
    this.draw(counts)
  }

  /** A message on its own line; the bar is redrawn below it on the next tick. */
  note(message: string): void {
    if (this.tty && this.drawn) this.out.write('\r\x1b[2K')
    this.drawn = false
    this.out.write(`${escapeForTerminal(message)}\n`)
  }

  /** The phase's last line, kept on screen. */
  end(counts: Counts): void {
    this.draw(counts, true)
    if (this.tty) this.out.write('\n')
    this.drawn = false
  }

  private draw(counts: Counts, final = false): void {
    const seconds = Math.max((this.now() - this.started) / 1000, 0.001)
    const rate = Math.round(counts.read / seconds)
    const { label, totalBytes, bytesRead } = this.phase
    const fraction = final ? 1 : totalBytes ? Math.min(bytesRead() / totalBytes, 1) : 0
    const percent = `${Math.floor(fraction * 100)}%`.padStart(4)
    const tally = `${counts.read} read, ${counts.imported} imported, ${counts.skipped} skipped, ${counts.rejected} rejected, ${rate}/s`
    if (!this.tty) {
      this.out.write(`${label}: ${percent.trim()} ${tally}${final ? `, ${seconds.toFixed(1)} s` : ''}\n`)
      return
    }
    const filled = Math.round(fraction * BAR_WIDTH)
    const bar = '█'.repeat(filled) + '░'.repeat(BAR_WIDTH - filled)
    let line = `${label.padEnd(5)} ${bar} ${percent}  ${tally}`
    if (this.out.columns && line.length > this.out.columns - 1) line = line.slice(0, this.out.columns - 1)
    this.out.write(`\r\x1b[2K${line}`)
    this.drawn = true
  }
}
