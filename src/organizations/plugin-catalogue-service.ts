/**
 * The installed plugins as an organization's admins see them when they switch plugins on and off:
 * every tool, connector and prompt processor, its name to show and its description, with the
 * organization's enabled state. For the organization's admins and system admins, like the rest of
 * its settings (403 for its other members, 404 for everyone else).
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { requireOrganizationAdministration } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import type { Registries } from '../pipeline/plugin-loading/registries.js';
import { findOrganizationById } from '../store/organizations-repository.js';
import type { Database } from '../store/schema.js';
import type { OrganizationControls } from './organization-controls.js';
import type { PluginCatalogueEntry, PluginCatalogueView } from './plugin-catalogue-schemas.js';
import type { StoredConfig } from './provider-settings-service.js';

interface Described {
  name: string;
  description: string;
  displayName?: string;
}

function entriesOf(definitions: Iterable<Described>, states: Record<string, boolean>): PluginCatalogueEntry[] {
  return [...definitions]
    .map((definition) => ({
      name: definition.name,
      display_name: definition.displayName ?? definition.name,
      description: definition.description,
      // Every installed plugin is in the states; one missing would be a plugin loaded since, enabled until disabled.
      enabled: states[definition.name] ?? true,
    }))
    .sort((left, right) => left.name.localeCompare(right.name));
}

export class PluginCatalogueService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly registries: Registries,
    private readonly controls: OrganizationControls,
  ) {}

  async list(context: CallContext, organizationId: number): Promise<PluginCatalogueView> {
    requireOrganizationAdministration(context.identity, organizationId);
    const organization = await findOrganizationById(this.db, organizationId);
    if (!organization) throw new AppError('not_found', 'Organization not found.');
    const { plugins } = this.controls.viewOf(JSON.parse(organization.config) as StoredConfig);
    return {
      tools: entriesOf(this.registries.tools.list(), plugins.tools),
      connectors: entriesOf(this.registries.connectors.values(), plugins.connectors),
      prompt_processors: entriesOf(this.registries.promptProcessors.values(), plugins.prompt_processors),
    };
  }
}
