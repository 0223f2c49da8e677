// A local S3 for the S3 blob driver's tests: s3rver (test/support/s3rver-child.ts) in a child process with a
// temporary directory. The child runs with --openssl-legacy-provider because s3rver makes ListObjectsV2's
// continuation tokens with DES, which OpenSSL 3 refuses otherwise: every listing of more than one page would fail.
// The child also answers the two multipart requests s3rver lacks (see there).
import { type ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { S3BlobOptions } from '../../src/blobs/s3.js'
import { tempDir } from './temp.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const UPLOADS = '._S3rver_uploads'

export interface LocalS3 {
  /** What s3Blobs takes to use `bucket`, one of those the server was started with. */
  optionsFor(bucket: string): S3BlobOptions
  /** The folders of the multipart uploads in progress in `bucket`, each named by its upload id. */
  uploads(bucket: string): string[]
  /** The folder where s3rver keeps the upload `uploadId` (its `key` file's time is when it began). */
  uploadFolder(bucket: string, uploadId: string): string
  close(): Promise<void>
}

async function portOf(child: ChildProcess): Promise<number> {
  let errors = ''
  child.stderr?.on('data', (d: Buffer) => (errors += d.toString()))
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`s3rver exited (${String(code)}) before it listened: ${errors}`)
  })
  const lines = createInterface({ input: child.stdout! })
  const first = once(lines, 'line').then(([line]) => (JSON.parse(line as string) as { port: number }).port)
  try {
    return await Promise.race([first, exited])
  } finally {
    lines.close()
    exited.catch(() => {})
  }
}

export async function startLocalS3(buckets: string[]): Promise<LocalS3> {
  const dir = tempDir('notes-s3rver-')
  const child = spawn(
    process.execPath,
    ['--openssl-legacy-provider', '--import', 'tsx', 'test/support/s3rver-child.ts', dir.path, ...buckets],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  )
  try {
    const port = await portOf(child)
    return {
      optionsFor: (bucket) => ({
        endpoint: `http://127.0.0.1:${port}`,
        region: 'us-east-1',
        bucket,
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        forcePathStyle: true,
      }),
      uploads(bucket) {
        try {
          return readdirSync(join(dir.path, bucket, UPLOADS))
        } catch {
          return []
        }
      },
      uploadFolder: (bucket, uploadId) => join(dir.path, bucket, UPLOADS, uploadId),
      async close() {
        const exited = once(child, 'exit')
        child.stdin?.end()
        await exited
        dir.remove()
      },
    }
  } catch (err) {
    child.kill('SIGKILL')
    dir.remove()
    throw err
  }
}
