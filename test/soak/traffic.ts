// The soak's load: each account slot runs an account with its devices until the time is up, a new account taking
// the slot of one deleted; each device picks its next request at random, weighted like a busy household with a few
// sign-outs among many note writes; beside them, the chaos loop revokes through the CLI and kills processes.
import { randomBytes } from 'node:crypto'
import { changePassword, deleteAccount, deleteSession, logout, logoutEverywhere, revokeByCli } from './account-ops.js'
import { Device, type SoakContext } from './device.js'
import { sidOf } from './http.js'
import { AccountModel, type NoteJson } from './model.js'
import {
  addNote,
  burst,
  deleteNote,
  editNote,
  listNotes,
  pinNote,
  restoreNote,
  restoreRevision,
  searchNote,
  writeShared,
} from './note-ops.js'
import { Random, type SoakSettings } from './settings.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One request of a device, chosen at random. */
async function step(d: Device): Promise<void> {
  const live = d.account.notesOf(d.prefix, 'live')
  const trash = d.account.notesOf(d.prefix, 'trash')
  const has = (n: unknown[], weight: number) => (n.length > 0 ? weight : 0)
  const op = d.random.weighted({
    add: live.length < 20 ? 8 : 1,
    edit: has(live, 12),
    pin: has(live, 4),
    delete: live.length > 3 ? 4 : 0,
    restore: has(trash, 3),
    revision: has(live, 3),
    search: has(live, 3),
    list: 2,
    burst: has(live, 2),
    pull: 5,
    shared: d.account.shared.id ? 6 : 0,
    logout: 0.5,
    deleteSession: 0.4,
    logoutEverywhere: 0.25,
    changePassword: 0.3,
    deleteAccount: 0.12,
  })
  switch (op) {
    case 'add':
      return addNote(d)
    case 'edit':
      return editNote(d, d.random.pick(live))
    case 'pin':
      return pinNote(d, d.random.pick(live))
    case 'delete':
      return deleteNote(d, d.random.pick(live))
    case 'restore':
      return restoreNote(d, d.random.pick(trash))
    case 'revision':
      return restoreRevision(d, d.random.pick(live))
    case 'search':
      return searchNote(d, d.random.pick(live))
    case 'list':
      return listNotes(d)
    case 'burst':
      return burst(d)
    case 'pull':
      return void (await d.pull())
    case 'shared':
      return writeShared(d)
    case 'logout':
      return logout(d)
    // An account-wide event held by another device: this one writes a note instead.
    case 'deleteSession':
      return void ((await deleteSession(d)) || (await addNote(d)))
    case 'logoutEverywhere':
      return void ((await logoutEverywhere(d)) || (await addNote(d)))
    case 'changePassword':
      return void ((await changePassword(d)) || (await addNote(d)))
    case 'deleteAccount':
      return void ((await deleteAccount(d)) || (await addNote(d)))
  }
}

export interface Population {
  accounts: AccountModel[]
  devices: Device[]
  /** The devices' stream tasks: they outlive the traffic, for the final checks. */
  streamTasks: Array<Promise<void>>
}

/** Registers an account through its first device, which then adds the note every device writes. */
async function register(ctx: SoakContext, account: AccountModel, first: Device): Promise<boolean> {
  const created = await first.request(
    'POST',
    '/create-account',
    { body: { fullName: `Soak ${account.label}`, email: account.email, password: account.passwords[0] } },
    '',
  )
  if (created.status !== 200 || created.json.error) return false
  account.userId = (created.json.user as { _id: string })._id
  first.token = created.json.accessToken as string
  first.sid = sidOf(first.token)
  first.needsLogin = false
  account.loggedIn(first.sid, 0, created.sentAt, created.answeredAt)
  ctx.recorder.figures.accounts++
  const shared = await first.request('POST', '/add-note', { body: { title: 'shared', content: 's0' } })
  if (shared.status === 200) {
    const note = shared.json.note as NoteJson
    account.shared.id = note._id
    account.shared.answers.push(note)
  }
  return true
}

/** One account slot: an account and its devices, and a new account whenever the slot's account is deleted. */
export async function runSlot(ctx: SoakContext, settings: SoakSettings, slot: number, into: Population): Promise<void> {
  for (let incarnation = 0; !ctx.trafficOver(); incarnation++) {
    const random = new Random(settings.seed, slot, incarnation, 1000)
    const label = `a${slot}i${incarnation}`
    const email = `soak.${label}.${randomBytes(4).toString('hex')}@example.com`
    const account = new AccountModel(label, email, `pw-${random.word(12)}`, ctx.recorder)
    const devices = Array.from(
      { length: settings.devices },
      (_, i) => new Device(ctx, account, i, new Random(settings.seed, slot, incarnation, i)),
    )
    if (!(await register(ctx, account, devices[0]!))) {
      await sleep(500)
      continue
    }
    into.accounts.push(account)
    into.devices.push(...devices)
    const running = devices.map((d) => d.run(step))
    // Streams start once their device has its first listing (its live replica's cursor).
    into.streamTasks.push(...devices.map((d) => d.holdStream()))
    await Promise.all(running)
  }
}

/** Every few seconds, each in a loop of its own: the CLI revokes the sessions of a random account; a worker or instance is killed. */
export async function runChaos(
  ctx: SoakContext,
  settings: SoakSettings,
  population: Population,
  log: (line: string) => void,
): Promise<void> {
  const every = async (random: Random, act: () => Promise<void>) => {
    for (;;) {
      const until = Date.now() + settings.chaosSeconds * 1000 * (0.5 + random.next())
      while (Date.now() < until && !ctx.trafficOver()) await sleep(100)
      if (ctx.trafficOver()) return
      try {
        await act()
      } catch (err) {
        // A process that does not start again is reported; the soak goes on with what still serves.
        const error = err instanceof Error ? err.message.slice(0, 300) : String(err)
        ctx.recorder.record('chaos', {
          status: 0,
          json: {},
          headers: {},
          sentAt: 0,
          answeredAt: 0,
          noAnswer: 'cut',
          error,
        })
        log(`chaos failed, and stops: ${error}`)
        return
      }
    }
  }
  const cli = new Random(settings.seed, 7777)
  const kills = new Random(settings.seed, 8888)
  await Promise.all([
    every(cli, async () => {
      const live = population.accounts.filter((a) => a.deletion === 'none' && !a.eventBusy)
      if (live.length > 0) await revokeByCli(ctx, cli.pick(live))
    }),
    every(kills, async () => {
      const what = await ctx.deployment.killOne(kills)
      ctx.recorder.figures.kills++
      log(`killed ${what}; it serves again`)
    }),
  ])
}
