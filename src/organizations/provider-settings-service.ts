/**
 * An organization's model providers: the OpenAI-compatible API key and base URL, and the Ollama
 * base URL, that its assistants use instead of the server-wide defaults. Keys are encrypted at
 * rest and never leave the server: the API only says whether one is set.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { requireOrganizationAdministration } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import type { ProviderSettings } from '../pipeline/connector-definition.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import { findOrganizationById, updateOrganizationConfig } from '../store/organizations-repository.js';
import type { Database } from '../store/schema.js';

interface StoredProviders {
  openai?: { api_key?: string; base_url?: string };
  ollama?: { base_url?: string };
}

interface StoredConfig {
  providers?: StoredProviders;
  [key: string]: unknown;
}

export interface ProviderSettingsView {
  providers: {
    openai: { base_url: string | null; api_key_set: boolean };
    ollama: { base_url: string | null };
  };
}

/** `null` clears a value; an absent field leaves it as it is. */
export interface ProviderSettingsPatch {
  providers: {
    openai?: { api_key?: string | null; base_url?: string | null };
    ollama?: { base_url?: string | null };
  };
}

function view(config: StoredConfig): ProviderSettingsView {
  return {
    providers: {
      openai: { base_url: config.providers?.openai?.base_url ?? null, api_key_set: config.providers?.openai?.api_key !== undefined },
      ollama: { base_url: config.providers?.ollama?.base_url ?? null },
    },
  };
}

/** Sets, clears (null) or keeps (undefined) one stored value. */
function apply<Value>(current: Value | undefined, change: Value | null | undefined): Value | undefined {
  if (change === undefined) return current;
  return change === null ? undefined : change;
}

export class ProviderSettingsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly secrets: SecretBox,
  ) {}

  private async load(organizationId: number): Promise<StoredConfig> {
    const organization = await findOrganizationById(this.db, organizationId);
    if (!organization) throw new AppError('not_found', 'Organization not found.');
    return JSON.parse(organization.config) as StoredConfig;
  }

  async get(context: CallContext, organizationId: number): Promise<ProviderSettingsView> {
    requireOrganizationAdministration(context.identity, organizationId);
    return view(await this.load(organizationId));
  }

  async update(context: CallContext, organizationId: number, patch: ProviderSettingsPatch): Promise<ProviderSettingsView> {
    requireOrganizationAdministration(context.identity, organizationId);
    const config = await this.load(organizationId);
    const openai = patch.providers.openai;
    const ollama = patch.providers.ollama;
    const apiKey = openai?.api_key;
    const providers: StoredProviders = {
      openai: {
        api_key: apply(config.providers?.openai?.api_key, apiKey === undefined || apiKey === null ? apiKey : this.secrets.encrypt(apiKey)),
        base_url: apply(config.providers?.openai?.base_url, openai?.base_url),
      },
      ollama: { base_url: apply(config.providers?.ollama?.base_url, ollama?.base_url) },
    };
    const next: StoredConfig = { ...config, providers: JSON.parse(JSON.stringify(providers)) as StoredProviders };
    const changed = [
      ...Object.keys(openai ?? {}).map((field) => `providers.openai.${field}`),
      ...Object.keys(ollama ?? {}).map((field) => `providers.ollama.${field}`),
    ].sort();
    await this.db.transaction().execute(async (transaction) => {
      await updateOrganizationConfig(transaction, organizationId, JSON.stringify(next));
      await appendAuditEntry(transaction, {
        actorUserId: context.identity.userId,
        organizationId,
        action: 'organization.providers_update',
        targetType: 'organization',
        targetId: organizationId,
        details: { fields: changed },
        requestId: context.requestId,
      });
    });
    return view(next);
  }

  /** The decrypted provider settings of an organization, by connector name, for the pipeline only. */
  async providersFor(organizationId: number): Promise<Record<string, ProviderSettings>> {
    const providers = (await this.load(organizationId)).providers ?? {};
    const openaiKey = providers.openai?.api_key;
    return {
      openai: { apiKey: openaiKey === undefined ? undefined : this.secrets.decrypt(openaiKey), baseUrl: providers.openai?.base_url },
      ollama: { baseUrl: providers.ollama?.base_url },
    };
  }
}
