/**
 * `merino reset-password --user <email|id>`: a one-time password, printed once, that the user must
 * change at the next login; the user's sessions end. The same reset an admin makes on the web.
 */
import { requiredOption, type AdminCommand } from './admin-command.js';
import { userNamed } from './command-session.js';
import { passwordChangeServiceOf } from './user-services.js';

export const resetPasswordCommand: AdminCommand = {
  name: 'reset-password',
  summary: 'set a one-time password for a user (printed once; it must be changed at the next login)',
  options: {
    user: { type: 'string', value: '<email|id>', description: 'the user', required: true },
  },
  async run(session, commandLine) {
    const target = await userNamed(session.store, requiredOption(commandLine, 'user'));
    const reset = await passwordChangeServiceOf(session).reset(session.system, target.id);
    session.print(`Reset the password of ${reset.user.email} (id ${reset.user.id}); their sessions have ended.`);
    session.print(`One-time password (shown only now; it must be changed at the next login): ${reset.one_time_password}`);
    return 0;
  },
};
