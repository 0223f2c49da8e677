import { type Client, addNote } from './harness.js'

/** The operations beside the contract's (docs/contract.md, "Trash, history and versions" and "Change feed"), as OpenAPI method and path. */
export const HISTORY_OPERATIONS: ReadonlyArray<readonly [string, string]> = [
  ['get', '/get-trash'],
  ['put', '/restore-note/{noteId}'],
  ['delete', '/delete-note-forever/{noteId}'],
  ['delete', '/empty-trash'],
  ['get', '/get-note-history/{noteId}'],
  ['put', '/restore-revision/{noteId}/{revisionId}'],
  ['get', '/get-changes'],
]

/** The path of a trash or history operation, with a note of `token`'s account (trashed where the operation needs it) and a revision of it. */
export async function historyPath(client: Client, token: string, template: string): Promise<string> {
  const note = await addNote(client, token, { title: 'history', content: 'first' })
  const call = (method: string, path: string, body?: unknown) =>
    client.request(method, path, { token, ...(body ? { body } : {}) })
  await call('PUT', `/edit-note/${note._id}`, { content: 'second' })
  const history = (await call('GET', `/get-note-history/${note._id}`)).json as { revisions: Array<{ _id: string }> }
  if (template.startsWith('/restore-note/') || template.startsWith('/delete-note-forever/'))
    await call('DELETE', `/delete-note/${note._id}`)
  return template.replace('{noteId}', note._id).replace('{revisionId}', history.revisions[0]?._id ?? '')
}
