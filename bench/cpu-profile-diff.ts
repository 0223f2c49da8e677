// Where two builds' time per write (or per request) differs: reads one V8 CPU profile of each (`node --cpu-prof`, e.g.
// through write-rate.js's `DIR:--cpu-prof,--cpu-prof-dir=/tmp/prof-a`), divides each function's or module's self time
// by the writes its process served, and lists the largest differences. Time in a system call (writev: a socket write)
// is sampled as wall time, so it also holds what the kernel and a preempted process spent there.
// Run: npm run build:bench && node dist-bench/bench/cpu-profile-diff.js A.cpuprofile WRITES_A B.cpuprofile WRITES_B [module|function] [ROWS]
import { readFileSync } from 'node:fs'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
}
interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

type Grouping = 'module' | 'function'

/** Where a frame's time goes in the table: its npm package, Node.js module or file of the build, or its function. */
function groupOf(frame: ProfileNode['callFrame'], grouping: Grouping): string {
  const url = frame.url.replace(/^file:\/\//, '')
  const inBuild = url.includes('/dist/') ? url.split('/dist/')[1]! : url.split('/').slice(-2).join('/')
  if (grouping === 'function') return `${frame.functionName || '(anonymous)'} ${inBuild}:${frame.lineNumber}`
  const npm = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)
  if (npm) return `npm:${npm[1]}`
  if (url.startsWith('node:')) return url
  return url ? inBuild : `(native) ${frame.functionName}`
}

/** Self time in µs by group. */
function selfTimes(file: string, grouping: Grouping): Map<string, number> {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
  const byNode = new Map<number, number>()
  profile.samples.forEach((id, i) => byNode.set(id, (byNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
  const times = new Map<string, number>()
  for (const node of profile.nodes) {
    const group = groupOf(node.callFrame, grouping)
    times.set(group, (times.get(group) ?? 0) + (byNode.get(node.id) ?? 0))
  }
  return times
}

function main(): void {
  const [fileA, writesA, fileB, writesB, grouping = 'module', rows = '30'] = process.argv.slice(2)
  if (!fileA || !fileB || !Number(writesA) || !Number(writesB) || (grouping !== 'module' && grouping !== 'function')) {
    throw new Error('usage: cpu-profile-diff.js A.cpuprofile WRITES_A B.cpuprofile WRITES_B [module|function] [ROWS]')
  }
  const a = selfTimes(fileA, grouping)
  const b = selfTimes(fileB, grouping)
  const idle = (group: string) => /\((idle|program)\)$/.test(group)
  const table = [...new Set([...a.keys(), ...b.keys()])]
    .filter((group) => !idle(group))
    .map((group) => ({ group, a: (a.get(group) ?? 0) / Number(writesA), b: (b.get(group) ?? 0) / Number(writesB) }))
  const sum = (pick: (row: (typeof table)[number]) => number) => table.reduce((total, row) => total + pick(row), 0)
  console.log(`µs per write, busy (idle excluded): ${sum((r) => r.a).toFixed(0)} -> ${sum((r) => r.b).toFixed(0)}`)
  console.log('| A µs | B µs | B - A | where |\n|---:|---:|---:|---|')
  for (const row of table.sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a)).slice(0, Number(rows))) {
    console.log(`| ${row.a.toFixed(1)} | ${row.b.toFixed(1)} | ${(row.b - row.a).toFixed(1)} | ${row.group} |`)
  }
}

main()
