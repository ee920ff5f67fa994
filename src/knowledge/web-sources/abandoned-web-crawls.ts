/**
 * Crawls left running by a process that died (`kill -9`, a lost machine): a crawl runs in the
 * process that started it, which renews a lease on it (WEB_CRAWL_LEASE_MS), so a crawl whose lease
 * ran out, or whose process is gone from this machine (runner-identity.ts), will never end by
 * itself. The leftover sweep (src/process/crash-leftovers.ts, at start-up and periodically) marks
 * such a crawl failed with a reason a teacher can act on; the pages it had read stay documents.
 * It is failed rather than resumed: the crawl's queue of links lived only in the dead process, and
 * starting it again is one click that reads what is missing.
 */
import type { Kysely } from 'kysely';
import { isDeadLocalOwner } from '../../ingestion/runner-identity.js';
import type { Database } from '../../store/schema.js';
import { failAbandonedWebCrawl, listRunningWebCrawls, type RunningWebCrawl } from '../../store/web-crawls-repository.js';

/** What a teacher reads on a crawl whose server stopped without ending it. */
export const CRAWL_INTERRUPTED_REASON =
  'The server running this crawl stopped before it ended; the pages read so far are kept. Start the crawl again to read the rest.';

/** Whether the crawl's runner is known to be gone: its lease ran out, or its process died on this machine. */
function isAbandoned(crawl: RunningWebCrawl, now: string): boolean {
  if (crawl.runner === null || crawl.lease_expires_at === null || crawl.lease_expires_at < now) return true;
  return isDeadLocalOwner(crawl.runner);
}

/** Fails every running crawl whose runner is gone; returns how many it failed. */
export async function failAbandonedWebCrawls(db: Kysely<Database>): Promise<number> {
  const now = new Date().toISOString();
  let failed = 0;
  for (const crawl of await listRunningWebCrawls(db)) {
    if (!isAbandoned(crawl, now)) continue;
    const failures = [...(JSON.parse(crawl.failures) as Array<{ url: string; reason: string }>)];
    failures.push({ url: crawl.start_url, reason: CRAWL_INTERRUPTED_REASON });
    if (await failAbandonedWebCrawl(db, crawl, JSON.stringify(failures))) failed += 1;
  }
  return failed;
}
