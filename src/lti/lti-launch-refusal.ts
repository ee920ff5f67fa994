/**
 * Why an LTI launch was refused, in words a learner or teacher can act on. The HTTP layer shows
 * the message on a 401 page; it names what was wrong, never a secret, a signature or a stack.
 */
export type LtiRefusalReason =
  | 'malformed_launch'
  | 'unknown_consumer'
  | 'bad_signature'
  | 'stale_timestamp'
  | 'reused_nonce'
  | 'unknown_platform'
  | 'invalid_token'
  | 'unknown_deployment'
  | 'unknown_state'
  | 'unbound_state'
  | 'unknown_assistant'
  | 'account_disabled'
  | 'organization_suspended';

const MESSAGES: Record<LtiRefusalReason, string> = {
  malformed_launch: 'The launch from your course is missing information Merino needs, or is not an LTI launch.',
  unknown_consumer: 'Merino does not know the consumer key this course used. Ask your administrator to check the LTI tool settings.',
  bad_signature:
    'The launch was not signed with the secret Merino holds for this consumer, or it was changed on the way. Ask your administrator to check the consumer key and secret.',
  stale_timestamp: "The launch is too old, or the course platform's clock is wrong. Go back to your course and open the activity again.",
  reused_nonce: 'This launch was already used once. Go back to your course and open the activity again.',
  unknown_platform:
    'Merino does not know the platform (issuer and client id) this launch came from. Ask your administrator to register it.',
  invalid_token:
    'The launch token from your course could not be verified (signature, audience or time). Open the activity again from your course.',
  unknown_deployment: 'This deployment of the tool is not registered in Merino. Ask your administrator to add its deployment id.',
  unknown_state: 'The sign-in from your course expired or was already used. Go back to your course and open the activity again.',
  unbound_state:
    'This sign-in was not started in this browser, so Merino cannot accept it here. Go back to your course and open the activity again.',
  unknown_assistant: 'The assistant this activity points to does not exist or is not available to you.',
  account_disabled: 'Your Merino account is disabled.',
  organization_suspended: 'Your organization is suspended in Merino. Ask your administrator to reactivate it.',
};

export class LtiLaunchRefusal extends Error {
  constructor(
    readonly reason: LtiRefusalReason,
    /** Shown only when more precise than the reason's own words; never secrets or signatures. */
    detail?: string,
  ) {
    super(detail ?? MESSAGES[reason]);
    this.name = 'LtiLaunchRefusal';
  }
}

export function isLtiLaunchRefusal(value: unknown): value is LtiLaunchRefusal {
  return value instanceof LtiLaunchRefusal;
}
