/**
 * moodle_augment — LAMB's Moodle-aware prompt processor (seed 003): simple_augment's rendering
 * plus `{moodle_user}`, the identifier of the person chatting: their Moodle user id when it can be
 * known (a trusted id from an LTI launch, or the account with their email on the organization's
 * Moodle), else their email. It is never what the conversation or a model claims.
 */
import { MoodleClient, trustedMoodleUserId } from '../integrations/moodle-client.js';
import { definePromptProcessor, renderClassicPrompt, type ToolContext } from '../pipeline/plugin-api.js';

export const MOODLE_USER_PLACEHOLDER = 'moodle_user';

/** Best effort, as LAMB's: a Moodle that fails or does not know the person leaves the email. */
async function moodleUserIdentifier(context: ToolContext): Promise<string> {
  const trusted = trustedMoodleUserId(context.requester);
  if (trusted !== undefined) return String(trusted);
  const moodle = context.integrations.moodle;
  if (moodle === undefined) return context.requester.email;
  try {
    return String(await new MoodleClient(moodle, context.signal).resolveUserId(context.requester));
  } catch {
    return context.requester.email;
  }
}

export default definePromptProcessor({
  name: 'moodle_augment',
  description: "Like simple_augment, plus {moodle_user}: the requester's Moodle user id when it can be resolved, else their email.",
  placeholders: [MOODLE_USER_PLACEHOLDER],
  resolveValues: async (context) => ({ [MOODLE_USER_PLACEHOLDER]: await moodleUserIdentifier(context) }),
  process: (input) => renderClassicPrompt(input, { [MOODLE_USER_PLACEHOLDER]: input.values[MOODLE_USER_PLACEHOLDER] ?? '' }),
});
