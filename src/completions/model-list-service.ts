/**
 * The studio's Model list: for the caller's organization, each connector's provider asked which
 * models it serves (its own URL and key, through the outbound guard when the organization set the
 * URL), with the organization's allowed models and default marked. A provider that gives no list
 * is shown as unavailable with its reason, never as a list of guesses. Test connectors (bypass)
 * are listed only to system admins, or to every creator when MODEL_LIST_TEST_CONNECTORS is on.
 *
 * Answers are kept per process for MODEL_LIST_CACHE_MS, failures too, so opening the studio does
 * not ask every provider every time; the cache holds the pending request, so callers that arrive
 * together share one. The cache key holds the provider's URL and a digest of its key, so a
 * changed provider setting is asked anew at once. Keys never leave the request's headers.
 */
import { createHash } from 'node:crypto';
import type { CallContext } from '../auth/call-context.js';
import type { Identity } from '../auth/identity.js';
import { mayListTestConnectors, requireAssistantCreation } from '../auth/permissions.js';
import type { ModelChoices, ProviderLookup } from '../organizations/provider-settings-service.js';
import type { ConnectorDefinition, ProviderSettings } from '../pipeline/plugin-contract/connector-definition.js';
import { startDeadline } from '../pipeline/bounds/deadline.js';
import { ModelListError, type ModelListFailure } from '../pipeline/plugin-contract/model-list-request.js';
import { HotReadCache } from '../store/hot-read-cache.js';
import type { ModelListView, ProviderModelsView } from './model-list-schemas.js';

export interface ModelListServiceOptions {
  connectors: ReadonlyMap<string, ConnectorDefinition>;
  providersFor: (organizationId: number) => Promise<ProviderLookup>;
  modelChoicesFor: (organizationId: number) => Promise<ModelChoices>;
  /** MODEL_LIST_CACHE_MS. */
  cacheMilliseconds: number;
  /** MODEL_LIST_TIMEOUT_MS. */
  timeoutMilliseconds: number;
  /** HOT_READ_CACHE_ENTRIES: the cache's bound. */
  entriesMaximum: number;
  /** MODEL_LIST_TEST_CONNECTORS. */
  testConnectorsForEveryone: boolean;
}

/** What one provider said: its model ids, or why it gave none. */
type Listing = { ids: readonly string[] } | { failure: ModelListFailure; status?: number };

function seconds(milliseconds: number): string {
  const value = milliseconds / 1_000;
  return `${Number.isInteger(value) ? value : value.toFixed(1)} second${value === 1 ? '' : 's'}`;
}

/** The reason in plain words; the web app has the same sentences in each language, by code. */
function messageOf(failure: ModelListFailure, status: number | undefined, timeoutMilliseconds: number): string {
  const withStatus = status === undefined ? '' : ` (HTTP ${status})`;
  switch (failure) {
    case 'no_key':
      return 'No API key is set for this provider.';
    case 'timeout':
      return `The provider did not answer within ${seconds(timeoutMilliseconds)}.`;
    case 'key_rejected':
      return `The provider refused the API key${withStatus}.`;
    case 'provider_error':
      return `The provider answered with an error${withStatus}.`;
    case 'malformed_answer':
      return 'The provider answered, but not with a list of models.';
    case 'unreachable':
      return 'The provider could not be reached.';
    case 'address_refused':
      return "The provider's address is on an internal network, which organizations may not reach.";
  }
}

function digest(text: string | undefined): string {
  return text === undefined ? '' : createHash('sha256').update(text).digest('base64url');
}

export class ModelListService {
  private readonly listings: HotReadCache<string, Promise<Listing>>;

  constructor(private readonly options: ModelListServiceOptions) {
    this.listings = new HotReadCache({ lifetimeMilliseconds: options.cacheMilliseconds, entriesMaximum: options.entriesMaximum });
  }

  /** The Model list of the studio, for those who may build assistants. */
  async list(context: CallContext): Promise<ModelListView> {
    requireAssistantCreation(context.identity);
    const connectors = this.connectorsFor(context.identity);
    const { organizationId } = context.identity;
    const [providers, choices] = await Promise.all([
      this.options.providersFor(organizationId),
      this.options.modelChoicesFor(organizationId),
    ]);
    const listed = await Promise.all(
      connectors.map(async (connector) =>
        this.view(connector, await this.listing(organizationId, connector, providers(connector.name)), choices),
      ),
    );
    return { providers: listed, default_model: choices.default ?? null };
  }

  /** Each connector's model ids as its provider lists them (none when it is unavailable), for /lamb/v1/completions/list. */
  async modelIdsFor(identity: Identity): Promise<Map<string, readonly string[]>> {
    const providers = await this.options.providersFor(identity.organizationId);
    const connectors = this.connectorsFor(identity);
    const listings = await Promise.all(
      connectors.map(async (connector) => {
        const listing = await this.listing(identity.organizationId, connector, providers(connector.name));
        return [connector.name, 'ids' in listing ? listing.ids : []] as const;
      }),
    );
    return new Map(listings);
  }

  private connectorsFor(identity: Identity): ConnectorDefinition[] {
    const showTesting = mayListTestConnectors(identity, this.options.testConnectorsForEveryone);
    return [...this.options.connectors.values()]
      .filter((connector) => showTesting || connector.testing !== true)
      .sort((first, second) => first.name.localeCompare(second.name));
  }

  /** The cached listing, or a new request that callers arriving meanwhile share. */
  private listing(organizationId: number, connector: ConnectorDefinition, provider: ProviderSettings): Promise<Listing> {
    const key = [organizationId, connector.name, provider.baseUrl ?? '', digest(provider.apiKey)].join('\n');
    const cached = this.listings.get(key);
    if (cached !== undefined) return cached;
    const pending = this.ask(connector, provider);
    this.listings.set(key, pending);
    return pending;
  }

  /** Asks the provider under the time limit; a connector that ignores the signal is not waited for past it either. */
  private async ask(connector: ConnectorDefinition, provider: ProviderSettings): Promise<Listing> {
    // A real timer (startDeadline), since AbortSignal.timeout's can be collected before it fires.
    const deadline = startDeadline(this.options.timeoutMilliseconds);
    const { signal } = deadline;
    const timedOut = new Promise<never>((_resolve, reject) => {
      signal.addEventListener('abort', () => reject(new ModelListError('timeout')), { once: true });
    });
    try {
      return { ids: await Promise.race([Promise.resolve(connector.models(provider, signal)), timedOut]) };
    } catch (error) {
      if (error instanceof ModelListError) return { failure: error.reason, ...(error.status !== undefined && { status: error.status }) };
      return { failure: signal.aborted ? 'timeout' : 'provider_error' };
    } finally {
      deadline.clear();
    }
  }

  private view(connector: ConnectorDefinition, listing: Listing, choices: ModelChoices): ProviderModelsView {
    const common = { connector: connector.name, description: connector.description, testing: connector.testing === true };
    if ('failure' in listing)
      return {
        ...common,
        available: false,
        reason: listing.failure,
        message: messageOf(listing.failure, listing.status, this.options.timeoutMilliseconds),
        models: [],
      };
    // The allowed list chooses among providers' models; a test connector is shown only to those who may use it anyway.
    const allowed = connector.testing === true ? undefined : choices.allowed;
    const models = listing.ids.map((id) => {
      const choice = `${connector.name}/${id}`;
      return { id, choice, allowed: allowed === undefined || allowed.includes(choice), default: choice === choices.default };
    });
    return { ...common, available: true, reason: null, message: null, models };
  }
}
