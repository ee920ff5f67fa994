/** `merino create-organization --name <name> --slug <slug>`: a new organization, through the organizations service. */
import { OrganizationService } from '../organizations/organization-service.js';
import { newOrganizationSchema, type NewOrganizationInput } from '../organizations/organization-schemas.js';
import { requiredOption, type AdminCommand } from './admin-command.js';
import { checkedInput, commandValidator } from './input-check.js';

const validNewOrganization = commandValidator<NewOrganizationInput>(newOrganizationSchema);
export const createOrganizationCommand: AdminCommand = {
  name: 'create-organization',
  summary: 'create an organization',
  options: {
    name: { type: 'string', value: '<name>', description: "the organization's name, as people see it", required: true },
    slug: { type: 'string', value: '<slug>', description: 'its short unique name: lower-case letters, digits and hyphens', required: true },
  },
  async run(session, commandLine) {
    const input = checkedInput(validNewOrganization, {
      name: requiredOption(commandLine, 'name'),
      slug: requiredOption(commandLine, 'slug'),
    });
    // The command line is its own process: there is no cache of another process to clear here.
    const organization = await new OrganizationService(session.store.db, () => undefined).create(session.system, input);
    session.print(`Created organization ${organization.slug} (id ${organization.id}): ${organization.name}`);
    return 0;
  },
};
