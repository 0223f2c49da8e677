// The editor's attachments, as shown: the Attach button (with its hidden file input, for those who
// cannot paste or drop), each upload under way with its progress and a Cancel, and the API's
// refusals, which stay until dismissed. Part of the editor's chunk, with its stylesheet.
import { useRef } from 'react'
import { CloseIcon } from '../Icons'
import type { Uploads } from './use-uploads'
import './uploads.css'

const PaperclipIcon = () => (
  <svg
    className="icon"
    width={18}
    height={18}
    viewBox="0 0 24 24"
    fill="none"
    stroke="currentColor"
    strokeWidth="1.9"
    strokeLinecap="round"
    strokeLinejoin="round"
    aria-hidden="true"
    focusable="false"
  >
    <path d="m20 11.5-8.1 8.1a5 5 0 0 1-7.1-7.1l8.5-8.5a3.4 3.4 0 0 1 4.8 4.8l-8.5 8.5a1.7 1.7 0 0 1-2.4-2.4l7.7-7.7" />
  </svg>
)

export function AttachButton({ attach }: Pick<Uploads, 'attach'>) {
  const input = useRef<HTMLInputElement>(null)
  return (
    <>
      <button type="button" className="button ghost small attach-button" onClick={() => input.current?.click()}>
        <PaperclipIcon /> Attach
      </button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        name="attachment"
        onChange={(event) => {
          attach(Array.from(event.target.files ?? []))
          event.target.value = ''
        }}
      />
    </>
  )
}

const percent = (sent: number, total: number) => (total > 0 ? Math.min(100, Math.round((sent / total) * 100)) : 0)

export function UploadList({ uploads, failures, dismiss }: Omit<Uploads, 'attach'>) {
  if (uploads.length === 0 && failures.length === 0) return null
  return (
    <div className="uploads">
      {uploads.length > 0 && (
        <ul className="upload-list" aria-label="Uploads">
          {uploads.map((upload) => {
            const done = percent(upload.sent, upload.total)
            return (
              <li key={upload.key} className="upload">
                <span className="upload-name">{upload.name}</span>
                <progress max={100} value={done} aria-label={`Uploading ${upload.name}`} />
                <span className="upload-percent" aria-hidden="true">
                  {done < 100 ? `${done}%` : 'Finishing…'}
                </span>
                <button
                  type="button"
                  className="icon-button small"
                  aria-label={`Cancel the upload of ${upload.name}`}
                  title="Cancel"
                  onClick={upload.cancel}
                >
                  <CloseIcon size={16} />
                </button>
              </li>
            )
          })}
        </ul>
      )}
      {failures.map((failure) => (
        <div key={failure.key} className="form-error upload-failure" role="alert">
          <span>{failure.message}</span>
          <button type="button" className="icon-button small" aria-label="Dismiss" onClick={() => dismiss(failure.key)}>
            <CloseIcon size={16} />
          </button>
        </div>
      ))}
    </div>
  )
}
