// Which process holds the server end of a loopback TCP connection (Linux /proc), so a bench can
// tell which `serve --workers` worker answers a connection without asking the service: the
// connection's row in /proc/net/tcp gives the socket's inode, and the worker whose open files
// include that socket holds it (the cluster primary hands accepted connections to a worker and
// closes its own copy).
import { readFileSync, readdirSync, readlinkSync } from 'node:fs'

const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, '0')

/** The inode of the socket whose local port is `serverPort` and remote port `clientPort`. */
function serverSocketInode(serverPort: number, clientPort: number): string | undefined {
  const local = `:${hexPort(serverPort)}`
  const remote = `:${hexPort(clientPort)}`
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/)
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
    if (fields[1]?.endsWith(local) && fields[2]?.endsWith(remote)) return fields[9]
  }
  return undefined
}

/** Child processes of `pid` (the cluster's workers). */
export function childrenOf(pid: number): number[] {
  const children: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (parent === pid) children.push(Number(entry))
    } catch {
      // the process ended while we looked
    }
  }
  return children.sort((a, b) => a - b)
}

/** Which of `pids` holds the server end of the connection from `clientPort` to `serverPort`. */
export function processOfConnection(pids: readonly number[], serverPort: number, clientPort: number): number | undefined {
  const inode = serverSocketInode(serverPort, clientPort)
  if (inode === undefined) return undefined
  const target = `socket:[${inode}]`
  for (const pid of pids) {
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return pid
      } catch {
        // closed while we looked
      }
    }
  }
  return undefined
}
