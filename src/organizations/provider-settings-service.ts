/**
 * An organization's model providers and related settings: the API key and base URL of the
 * OpenAI-compatible provider, Anthropic and Gemini, the Ollama base URL, LAMB's external knowledge-base server (URL and API key), the small
 * fast model used for cheap helper calls such as rewriting retrieval queries, and its Moodle Web
 * Services (REST URL and token) for the Moodle tools, and its web search provider (web-search-settings.ts). They are used instead of the server-wide
 * defaults. Keys and tokens are encrypted at rest and never leave the server: the API only says
 * whether one is set.
 *
 * Every URL an organization sets is checked when saved (no literal internal address, no
 * `localhost`) and reached only through the outbound guard; the decrypted settings leave this
 * service only as resolved connections (provider-resolution.ts), never as loose fields a caller
 * could pair with the server's own key.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { requireOrganizationAdministration } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import { type OutboundGuard } from '../outbound/outbound-guard.js';
import type { OutboundFetch } from '../pipeline/upstream/outbound-fetch.js';
import type { ProviderSettings } from '../pipeline/plugin-contract/connector-definition.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import type { HotReadCache } from '../store/hot-read-cache.js';
import { findOrganizationById, updateOrganizationConfig } from '../store/organizations-repository.js';
import type { Database } from '../store/schema.js';
import type { ProviderSettingsPatch, ProviderSettingsView } from './provider-settings-schemas.js';
import { patchedWebSearch, usableWebSearch, webSearchView, type WebSearchProvider } from './web-search-settings.js';
import {
  KEYED_PROVIDERS,
  resolveProvider,
  type KeyedProvider,
  type OrganizationProviders,
  type OutboundRoute,
  type OutboundRoutes,
  type ServerProviderDefaults,
} from './provider-resolution.js';

/** A keyed provider as stored: the key encrypted with the SecretBox. */
interface StoredKeyedProvider {
  api_key?: string;
  base_url?: string;
}

type StoredProviders = Partial<Record<KeyedProvider, StoredKeyedProvider>> & { ollama?: { base_url?: string } };

interface StoredKnowledgeServer {
  url?: string;
  /** Encrypted with the SecretBox, like the OpenAI key. */
  api_key?: string;
}

interface StoredMoodle {
  api_url?: string;
  /** Encrypted with the SecretBox, like the OpenAI key. */
  token?: string;
}

interface StoredSmallFastModel {
  connector: string;
  model: string;
}

/** The studio's Model list choices, models as `connector/model`. */
export interface ModelChoices {
  /** Undefined allows every model the providers serve. */
  allowed?: string[];
  default?: string;
}

export interface StoredConfig {
  providers?: StoredProviders;
  models?: ModelChoices;
  kb_server?: StoredKnowledgeServer;
  small_fast_model?: StoredSmallFastModel;
  moodle?: StoredMoodle;
  web_search?: unknown;
  [key: string]: unknown;
}

/** The organization's Moodle Web Services, with the token decrypted: for server-side callers only. */
export interface MoodleSettings {
  apiUrl: string;
  token: string;
  /** The outbound guard's fetch for `moodle.api_url`. */
  fetch: OutboundFetch;
}

/** The organization's web search provider, its key decrypted: for server-side callers only. */
export interface WebSearchSettings {
  provider: WebSearchProvider;
  url: string;
  apiKey?: string;
  /** The outbound guard's fetch for `web_search.url`. */
  fetch: OutboundFetch;
  /** The outbound guard's fetch for the pages results link to. */
  pageFetch: OutboundFetch;
}

/** The organization's knowledge-base server, with its key decrypted: for server-side callers only. */
export interface KnowledgeServerSettings {
  url: string;
  apiKey: string | undefined;
  /** The outbound guard's fetch for `kb_server.url`. */
  fetch: OutboundFetch;
}

/** A connector's provider for one organization, resolved: URL, key and fetch together. */
export type ProviderLookup = (connectorName: string) => ProviderSettings;

export interface ProviderSettingsOptions {
  /** The server's provider keys and URLs (OPENAI_*, ANTHROPIC_*, GEMINI_*, OLLAMA_BASE_URL): used only where the organization sets no URL of its own. */
  serverProviders: ServerProviderDefaults;
  /** Checks URLs when saved and reaches them when used. */
  outbound: OutboundGuard;
  /** How provider calls reach the server's own URLs (src/outbound/outbound-post.ts's `serverAgent`). */
  server: OutboundRoute;
  /** Organization id → its stored settings, as runs read them, for HOT_READ_CACHE_MS (docs/deployment.md, "Caches"). */
  cache: HotReadCache<number, StoredConfig>;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function storedSmallFastModel(config: StoredConfig): StoredSmallFastModel | undefined {
  const stored: unknown = config.small_fast_model;
  if (typeof stored !== 'object' || stored === null) return undefined;
  const connector = text((stored as Record<string, unknown>).connector);
  const model = text((stored as Record<string, unknown>).model);
  return connector === undefined || model === undefined ? undefined : { connector, model };
}

function storedModelChoices(config: StoredConfig): ModelChoices {
  const stored: unknown = config.models;
  if (typeof stored !== 'object' || stored === null) return {};
  const { allowed, default: defaultModel } = stored as Record<string, unknown>;
  return {
    ...(Array.isArray(allowed) && { allowed: allowed.filter((model): model is string => typeof model === 'string') }),
    ...(typeof defaultModel === 'string' && { default: defaultModel }),
  };
}

function keyedProviderView(stored: StoredKeyedProvider | undefined): { base_url: string | null; api_key_set: boolean } {
  return { base_url: stored?.base_url ?? null, api_key_set: stored?.api_key !== undefined };
}

function view(config: StoredConfig): ProviderSettingsView {
  const smallFastModel = storedSmallFastModel(config);
  const modelChoices = storedModelChoices(config);
  return {
    providers: {
      openai: keyedProviderView(config.providers?.openai),
      anthropic: keyedProviderView(config.providers?.anthropic),
      gemini: keyedProviderView(config.providers?.gemini),
      ollama: { base_url: config.providers?.ollama?.base_url ?? null },
    },
    kb_server: { url: text(config.kb_server?.url) ?? null, api_key_set: text(config.kb_server?.api_key) !== undefined },
    small_fast_model: smallFastModel === undefined ? null : { connector: smallFastModel.connector, model: smallFastModel.model },
    moodle: { api_url: text(config.moodle?.api_url) ?? null, token_set: text(config.moodle?.token) !== undefined },
    web_search: webSearchView(config.web_search),
    models: { allowed: modelChoices.allowed ?? null, default: modelChoices.default ?? null },
  };
}

/** Sets, clears (null) or keeps (undefined) one stored value. */
function apply<Value>(current: Value | undefined, change: Value | null | undefined): Value | undefined {
  if (change === undefined) return current;
  return change === null ? undefined : change;
}

/** Drops undefined members (and an object left empty), as JSON would. */
function compact<Value extends object>(value: Value): Value | undefined {
  const kept = JSON.parse(JSON.stringify(value)) as Value;
  return Object.keys(kept).length === 0 ? undefined : kept;
}

export class ProviderSettingsService {
  private readonly routes: OutboundRoutes;
  /**
   * Each stored settings read's lookup, keys decrypted and each connector's provider resolved once
   * rather than on every run; it lives as long as the read (HOT_READ_CACHE_MS, or until a change).
   */
  private readonly lookups = new WeakMap<StoredConfig, ProviderLookup>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly secrets: SecretBox,
    private readonly options: ProviderSettingsOptions,
  ) {
    this.routes = {
      server: options.server,
      organization: (field) => ({ fetch: options.outbound.fetchFor(field), post: options.outbound.postFor(field) }),
    };
  }

  /** Refuses, naming the field, any URL in the patch whose host is plainly internal. */
  private checkUrls(patch: ProviderSettingsPatch): void {
    const urls: Array<[string, string | null | undefined]> = [
      ...KEYED_PROVIDERS.map((provider): [string, string | null | undefined] => [
        `providers.${provider}.base_url`,
        patch.providers?.[provider]?.base_url,
      ]),
      ['providers.ollama.base_url', patch.providers?.ollama?.base_url],
      ['kb_server.url', patch.kb_server?.url],
      ['moodle.api_url', patch.moodle?.api_url],
      ['web_search.url', patch.web_search?.url],
    ];
    for (const [field, url] of urls) if (typeof url === 'string') this.options.outbound.checkConfiguredUrl(url, field);
  }

  private async load(organizationId: number): Promise<StoredConfig> {
    const organization = await findOrganizationById(this.db, organizationId);
    if (!organization) throw new AppError('not_found', 'Organization not found.');
    return JSON.parse(organization.config) as StoredConfig;
  }

  /**
   * The settings as runs read them: from this process's cache for up to HOT_READ_CACHE_MS, so a
   * change saved through another process reaches runs here within that window (one saved here
   * reaches them at once: update forgets the entry). Administrators' reads and updates never use it.
   */
  private async loadForRun(organizationId: number): Promise<StoredConfig> {
    return this.options.cache.read(organizationId, () => this.load(organizationId));
  }

  private seal(key: string | null | undefined): string | null | undefined {
    return key === undefined || key === null ? key : this.secrets.encrypt(key);
  }

  async get(context: CallContext, organizationId: number): Promise<ProviderSettingsView> {
    requireOrganizationAdministration(context.identity, organizationId);
    return view(await this.load(organizationId));
  }

  async update(context: CallContext, organizationId: number, patch: ProviderSettingsPatch): Promise<ProviderSettingsView> {
    requireOrganizationAdministration(context.identity, organizationId);
    this.checkUrls(patch);
    const config = await this.load(organizationId);
    const ollama = patch.providers?.ollama;
    const providers: StoredProviders = { ollama: { base_url: apply(config.providers?.ollama?.base_url, ollama?.base_url) } };
    const changed = Object.keys(ollama ?? {}).map((field) => `providers.ollama.${field}`);
    for (const provider of KEYED_PROVIDERS) {
      const change = patch.providers?.[provider];
      providers[provider] = {
        api_key: apply(config.providers?.[provider]?.api_key, this.seal(change?.api_key)),
        base_url: apply(config.providers?.[provider]?.base_url, change?.base_url),
      };
      changed.push(...Object.keys(change ?? {}).map((field) => `providers.${provider}.${field}`));
    }
    const next: StoredConfig = { ...config, providers: JSON.parse(JSON.stringify(providers)) as StoredProviders };

    if (patch.kb_server !== undefined) {
      // `kb_server: null` clears both of its fields.
      const change = patch.kb_server ?? { url: null, api_key: null };
      const knowledgeServer = compact<StoredKnowledgeServer>({
        url: apply(text(config.kb_server?.url), change.url),
        api_key: apply(text(config.kb_server?.api_key), this.seal(change.api_key)),
      });
      if (knowledgeServer === undefined) delete next.kb_server;
      else next.kb_server = knowledgeServer;
      changed.push(...Object.keys(change).map((field) => `kb_server.${field}`));
    }

    if (patch.moodle !== undefined) {
      // `moodle: null` clears both of its fields.
      const change = patch.moodle ?? { api_url: null, token: null };
      const moodle = compact<StoredMoodle>({
        api_url: apply(text(config.moodle?.api_url), change.api_url),
        token: apply(text(config.moodle?.token), this.seal(change.token)),
      });
      if (moodle === undefined) delete next.moodle;
      else next.moodle = moodle;
      changed.push(...Object.keys(change).map((field) => `moodle.${field}`));
    }

    if (patch.web_search !== undefined) {
      const change = patch.web_search ?? { provider: undefined, url: null, api_key: null };
      const webSearch =
        patch.web_search === null ? undefined : patchedWebSearch(config.web_search, change, (key) => this.secrets.encrypt(key));
      if (webSearch === undefined) delete next.web_search;
      else next.web_search = webSearch;
      changed.push(...(patch.web_search === null ? ['web_search'] : Object.keys(change).map((field) => `web_search.${field}`)));
    }

    if (patch.models !== undefined) {
      const current = storedModelChoices(config);
      const choices = compact<ModelChoices>({
        allowed: apply(current.allowed, patch.models.allowed),
        default: apply(current.default, patch.models.default),
      });
      if (choices === undefined) delete next.models;
      else next.models = choices;
      changed.push(...Object.keys(patch.models).map((field) => `models.${field}`));
    }

    if (patch.small_fast_model !== undefined) {
      if (patch.small_fast_model === null) delete next.small_fast_model;
      else next.small_fast_model = { connector: patch.small_fast_model.connector, model: patch.small_fast_model.model };
      changed.push('small_fast_model');
    }

    await this.db.transaction().execute(async (transaction) => {
      await updateOrganizationConfig(transaction, organizationId, JSON.stringify(next));
      await appendAuditEntry(transaction, {
        actorUserId: context.identity.userId,
        organizationId,
        action: 'organization.providers_update',
        targetType: 'organization',
        targetId: organizationId,
        details: { fields: changed.sort() },
        requestId: context.requestId,
      });
    });
    this.options.cache.forget(organizationId);
    return view(next);
  }

  /**
   * The organization's providers resolved against the server's (provider-resolution.ts), by
   * connector name, keys decrypted: for the pipeline and the embedder only.
   */
  async providersFor(organizationId: number): Promise<ProviderLookup> {
    const stored = await this.loadForRun(organizationId);
    const held = this.lookups.get(stored);
    if (held !== undefined) return held;
    const providers = stored.providers ?? {};
    const organization: OrganizationProviders = { ollama: { baseUrl: text(providers.ollama?.base_url) } };
    for (const provider of KEYED_PROVIDERS) {
      const sealedKey = text(providers[provider]?.api_key);
      organization[provider] = {
        apiKey: sealedKey === undefined ? undefined : this.secrets.decrypt(sealedKey),
        baseUrl: text(providers[provider]?.base_url),
      };
    }
    const resolved = new Map<string, ProviderSettings>();
    const lookup: ProviderLookup = (connectorName) => {
      let settings = resolved.get(connectorName);
      if (settings === undefined) {
        settings = Object.freeze(resolveProvider(connectorName, organization, this.options.serverProviders, this.routes));
        resolved.set(connectorName, settings);
      }
      return settings;
    };
    this.lookups.set(stored, lookup);
    return lookup;
  }

  /**
   * The organization's external (LAMB) knowledge-base server with its key decrypted, or undefined
   * when it has no URL set. For server-side callers only: never return it to a client or log it.
   */
  async knowledgeServerFor(organizationId: number): Promise<KnowledgeServerSettings | undefined> {
    const stored = (await this.loadForRun(organizationId)).kb_server;
    const url = text(stored?.url);
    if (url === undefined) return undefined;
    const sealedKey = text(stored?.api_key);
    return {
      url,
      apiKey: sealedKey === undefined ? undefined : this.secrets.decrypt(sealedKey),
      fetch: this.routes.organization('kb_server.url').fetch,
    };
  }

  /**
   * The organization's Moodle Web Services with the token decrypted, or undefined unless both the
   * URL and the token are set. For server-side callers only: never return it to a client or log it.
   */
  async moodleFor(organizationId: number): Promise<MoodleSettings | undefined> {
    const stored = (await this.loadForRun(organizationId)).moodle;
    const apiUrl = text(stored?.api_url);
    const sealedToken = text(stored?.token);
    if (apiUrl === undefined || sealedToken === undefined) return undefined;
    return { apiUrl, token: this.secrets.decrypt(sealedToken), fetch: this.routes.organization('moodle.api_url').fetch };
  }

  /**
   * The organization's web search provider with its key decrypted, or undefined until it is usable.
   * For server-side callers only: never return it to a client or log it.
   */
  async webSearchFor(organizationId: number): Promise<WebSearchSettings | undefined> {
    const usable = usableWebSearch((await this.loadForRun(organizationId)).web_search, (sealed) => this.secrets.decrypt(sealed));
    if (usable === undefined) return undefined;
    return {
      ...usable,
      fetch: this.options.outbound.fetchFor('web_search.url'),
      pageFetch: this.options.outbound.fetchFor('web_search.pages'),
    };
  }

  /** The organization's allowed models and its default, for the studio's Model list. */
  async modelChoicesFor(organizationId: number): Promise<ModelChoices> {
    return storedModelChoices(await this.loadForRun(organizationId));
  }

  /** The organization's small fast model (e.g. `openai` / `gpt-4o-mini`), or undefined when none is set. */
  async smallFastModelFor(organizationId: number): Promise<{ connector: string; model: string } | undefined> {
    return storedSmallFastModel(await this.loadForRun(organizationId));
  }
}
