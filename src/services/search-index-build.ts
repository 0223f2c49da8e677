// Search's index is built after the service starts listening (docs/search.md, "Building the index"): search reads every
// note until it is complete, so a large database serves at once and the build's progress goes to the log.
import type { FastifyBaseLogger } from 'fastify'
import type { Store } from '../store/types.js'

const PROGRESS_LOG_EVERY_MS = 10_000

/** Never rejects: a build stopped by the service closing resumes at the next start; another failure is logged. */
export async function buildSearchIndexLogged(
  store: Store,
  log: FastifyBaseLogger,
  closing: () => boolean,
): Promise<void> {
  let loggedAt = Date.now()
  const startedAt = loggedAt
  try {
    const built = await store.buildSearchIndex((fraction) => {
      if (Date.now() - loggedAt < PROGRESS_LOG_EVERY_MS) return
      loggedAt = Date.now()
      log.info(
        `Building the search index: ${Math.floor(fraction * 100)} % done; search reads every note until it is complete`,
      )
    })
    if (built === 'built') log.info(`Search index built in ${Math.round((Date.now() - startedAt) / 1000)} s`)
    else if (built === 'elsewhere')
      log.info('Another instance is building the search index; search reads every note until it is complete')
    else if (built !== 'ready') {
      log.warn(
        `Search has no index and reads every note: ${built.unavailable}. docs/postgresql.md, "Search index", says how to enable it`,
      )
    }
  } catch (err) {
    if (closing()) log.info('Building the search index stopped with the service; it resumes at the next start')
    else log.error({ err }, 'Building the search index failed; search reads every note')
  }
}
