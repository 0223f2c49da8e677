// The per-request histograms (src/plugins/metrics/cells.ts) replace prom-client's Histogram on
// the hot path; /metrics must print exactly what prom-client's own Histogram and Counter print
// for the same observations, whatever they are.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { Counter, Histogram, Registry } from 'prom-client'
import { CellHistogram } from '../src/plugins/metrics/cells.js'

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const LABELS = ['method', 'route', 'status_code'] as const

type Observation = { method: string; route: string; status_code: number; value: number }

/** The same observations through prom-client (reference) and through cells (ours): both texts. */
async function bothTexts(observations: Observation[]): Promise<[string, string]> {
  const reference = new Registry()
  const referenceHistogram = new Histogram({
    name: 'h_seconds',
    help: 'help "text"\\',
    labelNames: LABELS,
    buckets: BUCKETS,
    registers: [reference],
  })
  const referenceCounter = new Counter({ name: 'h_total', help: 'counted', labelNames: LABELS, registers: [reference] })
  const ours = new Registry()
  const histogram = new CellHistogram('h_seconds', 'help "text"\\', LABELS, BUCKETS, [ours])
  new Counter({
    name: 'h_total',
    help: 'counted',
    labelNames: LABELS,
    registers: [ours],
    collect() {
      this.reset()
      for (const cell of histogram.cells()) this.inc(cell.labels, cell.count)
    },
  })
  for (const { value, ...labels } of observations) {
    referenceHistogram.observe(labels, value)
    referenceCounter.inc(labels)
    histogram.cell(labels).observe(value)
  }
  return [await reference.metrics(), await ours.metrics()]
}

describe('metric cells', () => {
  it('print what prom-client prints: bounds, values above the last bound, several label sets, odd label values', async () => {
    const [reference, ours] = await bothTexts([
      { method: 'GET', route: '/get-user', status_code: 200, value: 0.001 }, // on a bound: that bucket
      { method: 'GET', route: '/get-user', status_code: 200, value: 0.0011 },
      { method: 'GET', route: '/get-user', status_code: 401, value: 0 },
      { method: 'POST', route: '/add-note', status_code: 200, value: 11 }, // above every bound
      { method: 'GET', route: 'a "quoted" \\ route\nwith a line break', status_code: 404, value: 0.3 },
      { method: 'GET', route: '/get-user', status_code: 200, value: 2.5 },
    ])
    assert.equal(ours, reference)
    assert.match(ours, /h_seconds_bucket\{le="0.001",method="GET",route="\/get-user",status_code="200"\} 1\n/)
    assert.match(ours, /h_total\{method="GET",route="\/get-user",status_code="200"\} 3\n/)
  })

  it('print what prom-client prints for any sequence of observations', async () => {
    const observation = fc.record({
      method: fc.constantFrom('GET', 'POST', 'HEAD'),
      route: fc.constantFrom('/get-user', '/get-all-notes', '(unmatched)'),
      status_code: fc.constantFrom(200, 400, 401, 404, 429, 500),
      value: fc.oneof(fc.constantFrom(...BUCKETS), fc.double({ min: 0, max: 20, noNaN: true })),
    })
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 60 }), async (observations) => {
        const [reference, ours] = await bothTexts(observations)
        assert.equal(ours, reference)
      }),
      { numRuns: 200 },
    )
  })

  it('gives one cell per label set, and forgets them all on reset', () => {
    const histogram = new CellHistogram('c_seconds', 'help', ['a'], [1], [new Registry()])
    assert.equal(histogram.cell({ a: 'x' }), histogram.cell({ a: 'x' }))
    assert.notEqual(histogram.cell({ a: 'x' }), histogram.cell({ a: 'y' }))
    histogram.cell({ a: 'x' }).observe(2)
    assert.equal(histogram.get().values.find((v) => v.metricName === 'c_seconds_count')?.value, 1)
    histogram.reset()
    assert.deepEqual(histogram.get().values, [])
  })
})
