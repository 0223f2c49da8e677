// "Export all notes" on the account page: every note as one zip (GET /export-notes), Markdown files
// to read anywhere or JSON that keeps everything, the trash and each note's history included on
// request. The file is fetched with the token in its header and saved from a blob: URL
// (export-request.ts), so the token is never in a URL.
import { useState } from 'react'
import { type ExportFormat, exportNotes } from '../../export-request'
import { useSignedIn } from '../../session'
import { FormPanel } from './FormPanel'
import { OFFLINE_EXPORT, exportedText } from './import-wording'
import { useAction } from './use-action'
import { useOnline } from './use-online'

const FORMATS: Array<{ format: ExportFormat; label: string; hint: string }> = [
  { format: 'markdown', label: 'Markdown (.zip)', hint: 'A file per note, readable in any editor or notes app.' },
  { format: 'json', label: 'JSON (.zip)', hint: 'Everything this app keeps, to import here or elsewhere.' },
]

export function ExportNotes() {
  const { token } = useSignedIn()
  const online = useOnline()
  const [format, setFormat] = useState<ExportFormat>('markdown')
  const [trashAndHistory, setTrashAndHistory] = useState(false)
  const action = useAction()

  function submit() {
    if (!navigator.onLine) return action.refuse(OFFLINE_EXPORT)
    void action.run(async () => exportedText(await exportNotes(token, format, trashAndHistory)))
  }

  return (
    <FormPanel
      title="Export all notes"
      hint="Download every note as one file, to keep a copy or to move to another app."
      action={action}
      onSubmit={submit}
      submit={
        <button type="submit" className="button primary" disabled={action.busy || !online}>
          {action.busy ? 'Exporting…' : 'Export notes'}
        </button>
      }
    >
      <fieldset className="export-formats">
        <legend>Format</legend>
        {FORMATS.map(({ format: value, label, hint }) => (
          <label key={value} className="choice">
            <input
              type="radio"
              name="format"
              value={value}
              checked={format === value}
              onChange={() => setFormat(value)}
            />
            <span>
              <span className="choice-label">{label}</span>
              <span className="choice-hint">{hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      <label className="choice export-extra">
        <input type="checkbox" checked={trashAndHistory} onChange={(e) => setTrashAndHistory(e.target.checked)} />
        <span className="choice-label">Include the trash and each note’s history</span>
      </label>
      {!online && <p className="notice warn">{OFFLINE_EXPORT}</p>}
    </FormPanel>
  )
}
