// Uploads through the public endpoint, as a client makes them.
import assert from 'node:assert/strict'
import type { AttachmentAnswer } from '../../src/attachment-shape.js'
import type { Harness, Reply } from './harness.js'
import { type FilePart, multipartBody } from './multipart.js'

export async function uploadFile(h: Harness, token: string, part: FilePart): Promise<Reply> {
  const { body, contentType } = multipartBody(part)
  return h.client.request('POST', '/upload-attachment', { token, raw: body, headers: { 'content-type': contentType } })
}

export async function uploaded(h: Harness, token: string, part: FilePart): Promise<AttachmentAnswer> {
  const reply = await uploadFile(h, token, part)
  assert.equal(reply.status, 200, reply.text)
  return (reply.json as { attachment: AttachmentAnswer }).attachment
}

/** One sample of the app's /metrics (0 when the series is absent), e.g. `attachment_thumbnails_total{source="made"}`. */
export async function metricSample(h: Harness, series: string): Promise<number> {
  const reply = await h.client.request('GET', '/metrics')
  assert.equal(reply.status, 200)
  const line = reply.text.split('\n').find((l) => l.startsWith(`${series} `))
  return line ? Number(line.slice(series.length + 1)) : 0
}
