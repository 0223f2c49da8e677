// Histograms whose label sets are looked up once, for the metrics of every request: prom-client's `observe(labels, value)`
// checks the names and builds a key on every call (docs/performance.md, "What shaped the design"). `get()` answers in
// the shape of prom-client's Histogram, so /metrics prints the same text (test/metric-cells.test.ts).
import type { Metric, Registry } from 'prom-client'

export class HistogramCell {
  /** Per bucket, not cumulative; above the last bound only `count` and `sum` grow. */
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
    // The registry reads name, type, get() and reset(), as of prom-client's own metrics.
    for (const registry of registers) registry.registerMetric(this as unknown as Metric)
  }

  /** Made on first use; callers keep it. */
  cell(labels: Readonly<Record<string, string | number>>): HistogramCell {
    const key = JSON.stringify(this.labelNames.map((name) => labels[name]))
    let cell = this.byKey.get(key)
    if (!cell) this.byKey.set(key, (cell = new HistogramCell(labels, this.upperBounds)))
    return cell
  }

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
        values.push({
          value: cumulative,
          labels: { le: bound },
          sharedLabels: cell.labels,
          metricName: `${this.name}_bucket`,
        })
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
