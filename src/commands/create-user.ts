/**
 * `merino create-user`: an account in an organization, through the users service. Without
 * --password-stdin the account gets a one-time password, printed once, that must be changed at
 * the first login (as an admin's reset gives), so no password ever sits in a shell history.
 */
import { generatePassword } from '../auth/passwords.js';
import { newUserSchema, type NewUserInput } from '../auth/user-schemas.js';
import { requiredOption, stringOption, type AdminCommand } from './admin-command.js';
import { organizationNamed } from './command-session.js';
import { checkedInput, commandValidator } from './input-check.js';
import { passwordChangeServiceOf, userServiceOf } from './user-services.js';

const validNewUser = commandValidator<NewUserInput>(newUserSchema);
/** The first line of standard input, without its line end: the password a script pipes in. */
async function passwordFromStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return (Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '').trimEnd();
}

export const createUserCommand: AdminCommand = {
  name: 'create-user',
  summary: 'create a user in an organization (a one-time password is printed once)',
  options: {
    email: { type: 'string', value: '<email>', description: 'the email the user logs in with', required: true },
    organization: { type: 'string', value: '<slug|id>', description: 'the organization the user belongs to', required: true },
    role: { type: 'string', value: '<admin|creator|learner>', description: "the user's role in it (default: learner)" },
    name: { type: 'string', value: '<name>', description: 'the name people see' },
    'system-admin': { type: 'boolean', description: 'make the user a system administrator as well' },
    'password-stdin': { type: 'boolean', description: 'read the password from the first line of standard input instead' },
  },
  async run(session, commandLine) {
    const chosen = commandLine.values['password-stdin'] === true ? await passwordFromStandardInput() : undefined;
    const organization = await organizationNamed(session.store, requiredOption(commandLine, 'organization'));
    const input = checkedInput(validNewUser, {
      email: requiredOption(commandLine, 'email'),
      password: chosen ?? generatePassword(),
      role: stringOption(commandLine, 'role') ?? 'learner',
      organization_id: organization.id,
      is_system_admin: commandLine.values['system-admin'] === true,
      ...(stringOption(commandLine, 'name') !== undefined && { name: stringOption(commandLine, 'name') }),
    });
    const user = await userServiceOf(session).create(session.system, input);
    session.print(`Created user ${user.email} (id ${user.id}) in ${organization.slug} as ${user.role}.`);
    if (chosen !== undefined) return 0;
    const reset = await passwordChangeServiceOf(session).reset(session.system, user.id);
    session.print(`One-time password (shown only now; it must be changed at the first login): ${reset.one_time_password}`);
    return 0;
  },
};
