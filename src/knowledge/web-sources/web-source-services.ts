/**
 * The services of knowledge from the web beyond one page, built from the settings: crawls of
 * same-site links, refreshing URL documents, and the periodic work that refreshes those on a
 * schedule (`web-page-refresh`, run by one process of the fleet every WEB_REFRESH_SWEEP_MS).
 */
import type { Settings } from '../../config/settings.js';
import type { FileStorage } from '../../files/file-storage.js';
import { runnerOwnerName } from '../../ingestion/runner-identity.js';
import type { OrganizationControls } from '../../organizations/organization-controls.js';
import type { OutboundGuard } from '../../outbound/outbound-guard.js';
import { PeriodicWork } from '../../scheduling/periodic-work.js';
import type { Store } from '../../store/store.js';
import type { KnowledgeDocumentService } from '../knowledge-document-service.js';
import { webPageReadingOf } from '../web-page-reading-settings.js';
import { WebCrawlService } from './web-crawl-service.js';
import { WebPageRefresher } from './web-page-refresh.js';

export const WEB_PAGE_REFRESH = 'web-page-refresh';

export interface WebSourceServices {
  webCrawls: WebCrawlService;
  webPageRefresher: WebPageRefresher;
  /** Not started here: main.ts (and the test server) start it and stop it on shutdown. */
  webPageRefreshSchedule: PeriodicWork<number>;
}

export function webSourceServices(
  store: Store,
  settings: Settings,
  parts: { documents: KnowledgeDocumentService; storage: FileStorage; outbound: OutboundGuard; organizationControls: OrganizationControls },
): WebSourceServices {
  const reading = webPageReadingOf(settings, parts.outbound.fetchFor('url'));
  const webPageRefresher = new WebPageRefresher({
    db: store.db,
    storage: parts.storage,
    reading,
    bytesMaximum: settings.knowledgeUploadBytesMaximum,
    intervalMinimumSeconds: settings.webRefreshIntervalMinimumSeconds,
    limitsFor: (organizationId) => parts.organizationControls.limitsFor(organizationId),
  });
  return {
    webCrawls: new WebCrawlService({
      db: store.db,
      documents: parts.documents,
      reading,
      depthMaximum: settings.webCrawlDepthMaximum,
      pagesMaximum: settings.webCrawlPagesMaximum,
      pagesInFlight: settings.webCrawlPagesInFlight,
      runner: runnerOwnerName(),
      leaseMilliseconds: settings.webCrawlLeaseMilliseconds,
    }),
    webPageRefresher,
    webPageRefreshSchedule: new PeriodicWork<number>({
      db: store.db,
      dialect: store.dialect,
      name: WEB_PAGE_REFRESH,
      intervalMilliseconds: settings.webRefreshSweepMilliseconds,
      runner: runnerOwnerName(),
      work: () => webPageRefresher.refreshDue(settings.webRefreshPagesPerSweep),
      describe: (refreshed) => (refreshed > 0 ? { refreshed } : undefined),
    }),
  };
}
