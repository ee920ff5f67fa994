/** How pages and caption tracks added by address are read, as the server's settings give it (README settings table). */
import type { Settings } from '../config/settings.js';
import type { WebPageReading } from './web-page-documents.js';

export function webPageReadingOf(settings: Settings, fetch: WebPageReading['fetch']): WebPageReading {
  return {
    fetch,
    bytesMaximum: settings.webPageBytesMaximum,
    timeoutMilliseconds: settings.webPageTimeoutMilliseconds,
    redirectsMaximum: settings.webPageRedirectsMaximum,
    youtubeBaseUrl: settings.youtubeBaseUrl,
  };
}
