/**
 * `merino create-api-key --user <email|id> --name <name>`: an API key for a user (a script's or a
 * front end's service account), through the API-key service. The key is printed once, on
 * standard output only; the store keeps only its hash, and nothing else writes it anywhere.
 */
import { newApiKeySchema, type NewApiKeyInput } from '../auth/api-key-schemas.js';
import { requiredOption, stringOption, type AdminCommand } from './admin-command.js';
import { userNamed } from './command-session.js';
import { checkedInput, commandValidator } from './input-check.js';
import { apiKeyServiceOf } from './user-services.js';

const validNewApiKey = commandValidator<NewApiKeyInput>(newApiKeySchema);
export const createApiKeyCommand: AdminCommand = {
  name: 'create-api-key',
  summary: 'create an API key for a user (the key is printed once)',
  options: {
    user: { type: 'string', value: '<email|id>', description: 'the user the key acts as', required: true },
    name: { type: 'string', value: '<name>', description: 'what the key is for, to tell keys apart', required: true },
    'expires-at': { type: 'string', value: '<date-time>', description: 'when the key stops working, e.g. 2027-01-31T23:59:59Z' },
    'trusted-front-end': { type: 'boolean', description: "mark it as a front end's key whose forwarded-user header is believed" },
    'source-links': { type: 'boolean', description: 'with --trusted-front-end: answers end with a "Sources" block of signed links' },
  },
  async run(session, commandLine) {
    const owner = await userNamed(session.store, requiredOption(commandLine, 'user'));
    const expiresAt = stringOption(commandLine, 'expires-at');
    const input = checkedInput(validNewApiKey, {
      name: requiredOption(commandLine, 'name'),
      user_id: owner.id,
      ...(expiresAt !== undefined && { expires_at: expiresAt }),
      ...(commandLine.values['trusted-front-end'] === true && { trusted_front_end: true }),
      ...(commandLine.values['source-links'] === true && { source_links: true }),
    });
    const created = await apiKeyServiceOf(session).create(session.system, input);
    session.print(`Created API key "${created.name}" (id ${created.id}) for ${owner.email}. The key is shown only now:`);
    session.print(created.key);
    return 0;
  },
};
