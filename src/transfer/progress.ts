// Progress of a long transfer: on a terminal, one line redrawn in place (a bar by bytes read,
// counts and rate); elsewhere (a log file, CI, a pipe), a plain line every few seconds. Notes such
// as rejected records are printed on their own lines without breaking the bar.
// Hand-written rather than a library (cli-progress and the like): the need is one line of text,
// the bar has to step aside for interleaved messages, and the non-terminal mode has to print
// plain, greppable lines; that is less code here than adapting a library to it.
// A note's text is escaped (unicode.ts): it quotes the file being read (an email, a parser's
// excerpt of a bad record), which may hold control characters.
import { escapeForTerminal } from '../unicode.js'

export interface Counts {
  read: number
  imported: number
  skipped: number
  rejected: number
}

export const zeroCounts = (): Counts => ({ read: 0, imported: 0, skipped: 0, rejected: 0 })

export interface ProgressOutput {
  write(text: string): unknown
  isTTY?: boolean
  columns?: number
}

const BAR_WIDTH = 24

export class Progress {
  private label = ''
  private totalBytes = 0
  private bytesRead: () => number = () => 0
  private started = 0
  private lastDraw = 0
  private drawn = false
  private readonly tty: boolean
  private readonly intervalMs: number

  constructor(
    private readonly out: ProgressOutput,
    options: { tty?: boolean; intervalMs?: number; now?: () => number } = {},
  ) {
    this.tty = options.tty ?? Boolean(out.isTTY)
    this.intervalMs = options.intervalMs ?? (this.tty ? 100 : 5000)
    this.now = options.now ?? Date.now
  }

  private readonly now: () => number

  begin(label: string, totalBytes: number, bytesRead: () => number): void {
    this.label = label
    this.totalBytes = totalBytes
    this.bytesRead = bytesRead
    this.started = this.now()
    this.lastDraw = this.started
  }

  /** Cheap to call per record: draws only when the interval has passed. */
  tick(counts: Counts): void {
    const t = this.now()
    if (t - this.lastDraw < this.intervalMs) return
    this.lastDraw = t
    this.draw(counts)
  }

  /** A message on its own line; the bar is redrawn below it on the next tick. */
  note(message: string): void {
    this.clear()
    this.out.write(`${escapeForTerminal(message)}\n`)
  }

  /** The phase's last line, kept on screen. */
  end(counts: Counts): void {
    this.draw(counts, true)
    if (this.tty) this.out.write('\n')
    this.drawn = false
  }

  private clear(): void {
    if (this.tty && this.drawn) this.out.write('\r\x1b[2K')
    this.drawn = false
  }

  private draw(counts: Counts, final = false): void {
    const seconds = Math.max((this.now() - this.started) / 1000, 0.001)
    const rate = Math.round(counts.read / seconds)
    const fraction = final ? 1 : this.totalBytes ? Math.min(this.bytesRead() / this.totalBytes, 1) : 0
    const percent = `${Math.floor(fraction * 100)}%`.padStart(4)
    const tally = `${counts.read} read, ${counts.imported} imported, ${counts.skipped} skipped, ${counts.rejected} rejected, ${rate}/s`
    if (!this.tty) {
      this.out.write(`${this.label}: ${percent.trim()} ${tally}${final ? `, ${seconds.toFixed(1)} s` : ''}\n`)
      return
    }
    const filled = Math.round(fraction * BAR_WIDTH)
    const bar = '█'.repeat(filled) + '░'.repeat(BAR_WIDTH - filled)
    let line = `${this.label.padEnd(5)} ${bar} ${percent}  ${tally}`
    if (this.out.columns && line.length > this.out.columns - 1) line = line.slice(0, this.out.columns - 1)
    this.out.write(`\r\x1b[2K${line}`)
    this.drawn = true
  }
}
