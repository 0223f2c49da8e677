// Histograms whose label sets are looked up once, for the metrics recorded on every request.
// Kept by hand because the library's way costs a named target more than 5 %: prom-client's
// `observe(labels, value)` and `inc(labels)` check the label names and build a string key from
// the values on every call, which costs GET /get-user several per cent of its rate
// (docs/performance.md, "What shaped the design"). Here a cell is found once per label set (the
// route's hook keeps one per status code; the timed store one per operation and outcome), and
// observing is a bucket search and three additions.
//
// The histogram is registered in the app's prom-client Registry (`registerMetric`) and answers
// `get()` in the shape of prom-client's own Histogram, so /metrics prints exactly what a
// prom-client Histogram given the same observations prints (test/metric-cells.test.ts compares
// the two). Counts derived from it (http_requests_total) are read through `cells()` at scrape time.
import type { Metric, Registry } from 'prom-client'

/** One label set's observations. */
export class HistogramCell {
  /** Observations per bucket, not cumulative; above the last bound only `count` and `sum` grow. */
  readonly buckets: Float64Array
  sum = 0
  count = 0

  constructor(
    readonly labels: Readonly<Record<string, string | number>>,
    private readonly upperBounds: readonly number[],
  ) {
    this.buckets = new Float64Array(upperBounds.length)
  }

  observe(value: number): void {
    // prom-client's rule: the first bound the value does not exceed.
    const bounds = this.upperBounds
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.buckets[i]!++
        break
      }
    }
    this.sum += value
    this.count++
  }
}

interface ValuePair {
  value: number
  labels: Record<string, string | number>
  sharedLabels?: Readonly<Record<string, string | number>>
  metricName: string
}

export class CellHistogram {
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  private readonly byKey = new Map<string, HistogramCell>()

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly upperBounds: readonly number[],
    registers: Registry[],
  ) {
    // The registry reads name, type, get() and reset(): the members prom-client's own metrics
    // have for it (https://github.com/siimon/prom-client#registry).
    for (const registry of registers) registry.registerMetric(this as unknown as Metric)
  }

  /** The cell of this label set, made on first use (not on the hot path: callers keep it). */
  cell(labels: Readonly<Record<string, string | number>>): HistogramCell {
    const key = JSON.stringify(this.labelNames.map((name) => labels[name]))
    let cell = this.byKey.get(key)
    if (!cell) {
      cell = new HistogramCell(labels, this.upperBounds)
      this.byKey.set(key, cell)
    }
    return cell
  }

  /** Every label set observed so far, in the order first seen. */
  cells(): IterableIterator<HistogramCell> {
    return this.byKey.values()
  }

  reset(): void {
    this.byKey.clear()
  }

  /** prom-client's Histogram.getForPromString: buckets (cumulative, then +Inf), sum, count per set. */
  get(): { name: string; help: string; type: string; aggregator: string; values: ValuePair[] } {
    const values: ValuePair[] = []
    for (const cell of this.byKey.values()) {
      let cumulative = 0
      for (const [i, bound] of this.upperBounds.entries()) {
        cumulative += cell.buckets[i]!
        values.push({ value: cumulative, labels: { le: bound }, sharedLabels: cell.labels, metricName: `${this.name}_bucket` })
      }
      values.push(
        { value: cell.count, labels: { le: '+Inf' }, sharedLabels: cell.labels, metricName: `${this.name}_bucket` },
        { value: cell.sum, labels: {}, sharedLabels: cell.labels, metricName: `${this.name}_sum` },
        { value: cell.count, labels: {}, sharedLabels: cell.labels, metricName: `${this.name}_count` },
      )
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values }
  }
}
