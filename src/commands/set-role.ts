/** `merino set-role --user <email|id> --role <admin|creator|learner>`: a user's role in their organization, through the users service. */
import { userPatchSchema, type UserPatchInput } from '../auth/user-schemas.js';
import { requiredOption, type AdminCommand } from './admin-command.js';
import { userNamed } from './command-session.js';
import { checkedInput, commandValidator } from './input-check.js';
import { userServiceOf } from './user-services.js';

const validUserPatch = commandValidator<UserPatchInput>(userPatchSchema);
export const setRoleCommand: AdminCommand = {
  name: 'set-role',
  summary: "change a user's role in their organization",
  options: {
    user: { type: 'string', value: '<email|id>', description: 'the user', required: true },
    role: { type: 'string', value: '<admin|creator|learner>', description: 'the new role', required: true },
  },
  async run(session, commandLine) {
    const input = checkedInput(validUserPatch, { role: requiredOption(commandLine, 'role') });
    const target = await userNamed(session.store, requiredOption(commandLine, 'user'));
    const user = await userServiceOf(session).update(session.system, target.id, input);
    session.print(`${user.email} (id ${user.id}) is now ${user.role} in organization ${user.organization_id}.`);
    return 0;
  },
};
