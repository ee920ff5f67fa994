/**
 * An organization's controls: which installed plugins it has disabled and its limits, kept in its
 * `config` JSON (`disabled_plugins`, `limits`) beside the provider settings. Stored as the disabled
 * names, so a plugin installed later starts enabled. Runs and uploads read them through the same
 * per-process cache as the provider settings (HOT_READ_CACHE_MS); a change saved here forgets the
 * cached entry at once.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { AppError } from '../errors/app-error.js';
import type { Registries } from '../pipeline/plugin-loading/registries.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import type { HotReadCache } from '../store/hot-read-cache.js';
import { lockOrganization } from '../store/organization-quota-counts-repository.js';
import { findOrganizationById, updateOrganizationConfig } from '../store/organizations-repository.js';
import type { Database } from '../store/schema.js';
import {
  PLUGIN_KINDS,
  limitsViewSchema,
  type LimitName,
  type LimitsPatch,
  type LimitsView,
  type PluginKind,
  type PluginsPatch,
  type PluginsView,
} from './organization-controls-schemas.js';
import type { DisabledPlugins } from './plugin-policy.js';
import type { StoredConfig } from './provider-settings-service.js';

/** A limit is set (a number) or absent (no limit). */
export type OrganizationLimits = Partial<Record<LimitName, number>>;

/** Every limit, in the order the settings document lists them. */
const LIMIT_NAMES: readonly LimitName[] = limitsViewSchema.required;

/** The disabled plugins a stored config names (anything malformed counts as nothing disabled). */
export function storedDisabledPlugins(config: StoredConfig): DisabledPlugins {
  const stored: unknown = config.disabled_plugins;
  const names = (kind: PluginKind): ReadonlySet<string> => {
    const list: unknown = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>)[kind] : undefined;
    return new Set(Array.isArray(list) ? list.filter((name): name is string => typeof name === 'string') : []);
  };
  return { tools: names('tools'), connectors: names('connectors'), prompt_processors: names('prompt_processors') };
}

/** The limits a stored config sets (non-negative finite numbers only). */
export function storedLimits(config: StoredConfig): OrganizationLimits {
  const stored: unknown = config.limits;
  if (typeof stored !== 'object' || stored === null) return {};
  const limits: OrganizationLimits = {};
  for (const name of LIMIT_NAMES) {
    const value = (stored as Record<string, unknown>)[name];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) limits[name] = value;
  }
  return limits;
}

/** `plugins.tools.weather`, `limits.storage_gb`, …: what a change named, for its audit entry. */
function changedFields(patch: OrganizationControlsPatch): string[] {
  const plugins = PLUGIN_KINDS.flatMap((kind) => Object.keys(patch.plugins?.[kind] ?? {}).map((name) => `plugins.${kind}.${name}`));
  const limits = Object.keys(patch.limits ?? {}).map((name) => `limits.${name}`);
  return [...plugins, ...limits].sort();
}

export interface OrganizationControlsView {
  plugins: PluginsView;
  limits: LimitsView;
}

export interface OrganizationControlsPatch {
  plugins?: PluginsPatch;
  limits?: LimitsPatch;
}

export class OrganizationControls {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly registries: Registries,
    /** The provider settings' cache of stored configs, shared so one change forgets one entry. */
    private readonly cache: HotReadCache<number, StoredConfig>,
  ) {}

  private installed(kind: PluginKind): string[] {
    if (kind === 'tools') return this.registries.tools.list().map((definition) => definition.name);
    const registry = kind === 'connectors' ? this.registries.connectors : this.registries.promptProcessors;
    return [...registry.keys()].sort();
  }

  /** Every installed plugin with whether it is enabled, and the limits; from a stored config. */
  viewOf(config: StoredConfig): OrganizationControlsView {
    const disabled = storedDisabledPlugins(config);
    const states = (kind: PluginKind): Record<string, boolean> =>
      Object.fromEntries(this.installed(kind).map((name) => [name, !disabled[kind].has(name)]));
    const limits = storedLimits(config);
    return {
      plugins: { tools: states('tools'), connectors: states('connectors'), prompt_processors: states('prompt_processors') },
      limits: Object.fromEntries(LIMIT_NAMES.map((name) => [name, limits[name] ?? null])) as LimitsView,
    };
  }

  /** Refuses (400 naming it) a plugin name this server does not have; checked before anything is saved. */
  checkPatch(patch: OrganizationControlsPatch): void {
    for (const kind of PLUGIN_KINDS) {
      const installed = new Set(this.installed(kind));
      for (const name of Object.keys(patch.plugins?.[kind] ?? {})) {
        if (!installed.has(name)) {
          throw new AppError(
            'invalid_body',
            `plugins.${kind} names ${JSON.stringify(name)}, which is not installed on this server. Installed: ${[...installed].join(', ') || 'none'}.`,
            { param: `plugins.${kind}` },
          );
        }
      }
    }
  }

  /** Applies a checked patch to the stored config, writing it with its audit entry in `transaction`. */
  async apply(
    transaction: Kysely<Database>,
    context: CallContext,
    organizationId: number,
    patch: OrganizationControlsPatch,
  ): Promise<void> {
    if (patch.plugins === undefined && patch.limits === undefined) return;
    // Read-modify-write of the config: concurrent changes take turns rather than lose one another.
    await lockOrganization(transaction, organizationId);
    const organization = await findOrganizationById(transaction, organizationId);
    if (!organization) throw new AppError('not_found', 'Organization not found.');
    const config = JSON.parse(organization.config) as StoredConfig;
    const disabled = storedDisabledPlugins(config);
    const nextDisabled = Object.fromEntries(
      PLUGIN_KINDS.map((kind) => {
        const names = new Set(disabled[kind]);
        for (const [name, enabled] of Object.entries(patch.plugins?.[kind] ?? {})) {
          if (enabled) names.delete(name);
          else names.add(name);
        }
        return [kind, [...names].sort()];
      }),
    );
    const current = storedLimits(config);
    const changes = patch.limits ?? {};
    // A limit the patch names takes its value (null removes it); the others keep theirs.
    const limits: OrganizationLimits = {};
    for (const name of LIMIT_NAMES) {
      const value = name in changes ? changes[name] : current[name];
      if (typeof value === 'number') limits[name] = value;
    }
    const next: StoredConfig = { ...config, disabled_plugins: nextDisabled, limits };
    await updateOrganizationConfig(transaction, organizationId, JSON.stringify(next));
    await appendAuditEntry(transaction, {
      actorUserId: context.identity.userId,
      organizationId,
      action: 'organization.controls_update',
      targetType: 'organization',
      targetId: organizationId,
      details: { fields: changedFields(patch) },
      requestId: context.requestId,
    });
  }

  /** Forgets the cached config after a change committed. */
  forget(organizationId: number): void {
    this.cache.forget(organizationId);
  }

  private async loadForRun(organizationId: number): Promise<StoredConfig> {
    return this.cache.read(organizationId, async () => {
      const organization = await findOrganizationById(this.db, organizationId);
      return organization === undefined ? {} : (JSON.parse(organization.config) as StoredConfig);
    });
  }

  /** The plugins the organization has disabled, as runs and the catalogue read them. */
  async disabledPluginsFor(organizationId: number): Promise<DisabledPlugins> {
    return storedDisabledPlugins(await this.loadForRun(organizationId));
  }

  /** The organization's limits, as uploads and runs read them. */
  async limitsFor(organizationId: number): Promise<OrganizationLimits> {
    return storedLimits(await this.loadForRun(organizationId));
  }
}
