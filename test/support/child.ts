// Waiting on a CLI child process (started with startCli from cli.ts): its exit and output, and
// the moment its server listens.
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'

export async function finished(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
  const [code] = (await once(child, 'exit')) as [number | null]
  return { code, stdout, stderr }
}

/** Resolves once the child's stdout shows the server listening. */
export async function listening(child: ChildProcess, timeoutMs = 20_000): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start in time')), timeoutMs)
    const onData = (d: Buffer) => {
      if (d.toString().includes('Server listening')) {
        clearTimeout(timer)
        child.stdout?.off('data', onData)
        resolve()
      }
    }
    child.stdout?.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`server exited with ${code}`))
    })
  })
}
