// What an import did: its file and format, the notes imported and already there, the files
// attached, why it stopped before the end (a quota) if it did, and the items it skipped with their
// reasons, folded away when there are many.
import type { ImportSummary } from '../../import-lines'
import { skippedHeading, summaryCounts, summaryHeadline } from './import-wording'

/** Up to this many skipped items show unfolded. */
const SKIPPED_SHOWN = 5

export function ImportResult({ name, summary }: { name: string; summary: ImportSummary }) {
  const { skipped } = summary
  return (
    <div className="import-result">
      <p className="import-headline">{summaryHeadline(name, summary)}</p>
      <dl className="import-counts">
        {summaryCounts(summary).map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {summary.stopped && <p className="notice warn import-stopped">{summary.stopped}</p>}
      {skipped.length > 0 && (
        <details className="import-skipped" open={skipped.length <= SKIPPED_SHOWN}>
          <summary>{skippedHeading(summary)}</summary>
          <ul>
            {skipped.map((item, index) => (
              <li key={index}>
                <span className="skipped-label">{item.label}</span>
                <span className="skipped-reason">{item.reason}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  )
}
