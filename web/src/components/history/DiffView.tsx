// One revision against the state after it: the title word by word, the content line by line
// (long unchanged stretches folded), the tags as chips. <del> and <ins> say which is which to
// assistive technology; the colours and the − and + signs say it to the eye.
import type { ReactNode } from 'react'
import { type Part, diffLines, diffTags, diffWords } from '../../diff'
import type { Revision } from '../../api'

export type Fields = Pick<Revision, 'title' | 'content' | 'tags'>

/** Unchanged lines shown around a change; longer unchanged stretches fold to a count. */
const CONTEXT = 2

function Marked({ part, children }: { part: Part; children: ReactNode }) {
  if (part.kind === 'removed') return <del>{children}</del>
  if (part.kind === 'added') return <ins>{children}</ins>
  return <span>{children}</span>
}

function Lines({ parts }: { parts: Part[] }) {
  const rows: ReactNode[] = []
  parts.forEach((part, p) => {
    const lines = part.text.replace(/\n$/, '').split('\n')
    if (part.kind !== 'same') {
      lines.forEach((line, i) =>
        rows.push(
          <Marked key={`${p}-${i}`} part={part}>
            {line || ' '}
          </Marked>,
        ),
      )
      return
    }
    const keepStart = p === 0 ? 0 : CONTEXT
    const keepEnd = p === parts.length - 1 ? 0 : CONTEXT
    const folded = lines.length - keepStart - keepEnd
    const shown = folded > 1 ? [...lines.slice(0, keepStart), undefined, ...lines.slice(lines.length - keepEnd)] : lines
    shown.forEach((line, i) =>
      rows.push(
        line === undefined ? (
          <span key={`${p}-${i}`} className="diff-fold">
            {folded} unchanged lines
          </span>
        ) : (
          <span key={`${p}-${i}`}>{line || ' '}</span>
        ),
      ),
    )
  })
  return <div className="diff-lines">{rows}</div>
}

export function DiffView({ from, to }: { from: Fields; to: Fields }) {
  const tags = diffTags(from.tags, to.tags)
  const tagsChanged = tags.added.length + tags.removed.length > 0
  return (
    <dl className="diff">
      <dt>Title</dt>
      <dd className="diff-title">
        {from.title === to.title ? (
          <span className="diff-same">Unchanged: {to.title}</span>
        ) : (
          diffWords(from.title, to.title).map((part, i) => (
            <Marked key={i} part={part}>
              {part.text}
            </Marked>
          ))
        )}
      </dd>
      <dt>Content</dt>
      <dd>
        {from.content === to.content ? (
          <span className="diff-same">Unchanged</span>
        ) : (
          <Lines parts={diffLines(from.content, to.content)} />
        )}
      </dd>
      <dt>Tags</dt>
      <dd className="diff-tags">
        {!tagsChanged && <span className="diff-same">{to.tags.length ? 'Unchanged: ' : 'None'}</span>}
        {tags.removed.map((t) => (
          <del key={`-${t}`}>{t}</del>
        ))}
        {tags.added.map((t) => (
          <ins key={`+${t}`}>{t}</ins>
        ))}
        {tags.kept.map((t) => (
          <span key={t}>{t}</span>
        ))}
      </dd>
    </dl>
  )
}

/** "Title and content changed": what differs between two states, for the list of versions. */
export function summary(from: Fields, to: Fields): string {
  const changed = [
    from.title !== to.title && 'title',
    from.content !== to.content && 'content',
    from.tags.join('\u0000') !== to.tags.join('\u0000') && 'tags',
  ].filter((x): x is string => Boolean(x))
  if (changed.length === 0) return 'No change to the text'
  const words =
    changed.length === 1 ? changed[0]! : `${changed.slice(0, -1).join(', ')} and ${changed[changed.length - 1]!}`
  return `${words[0]!.toUpperCase()}${words.slice(1)} changed`
}
