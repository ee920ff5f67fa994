// The shapes the LTI administration API answers (/api/lti/...), as the page reads them.
export interface ToolUrls {
  launch_url: string;
  login_url: string;
  redirect_uri: string;
  jwks_url: string;
  deep_linking_url: string;
}

export interface LtiConsumer {
  id: number;
  name: string;
  consumer_key: string;
  frame_origins: string[];
  created_at: string;
}

export interface CreatedLtiConsumer extends LtiConsumer {
  consumer_secret: string;
}

export interface LtiPlatform {
  id: number;
  issuer: string;
  client_id: string;
  deployment_ids: string[];
  auth_login_url: string;
  auth_token_url: string;
  jwks_url: string | null;
  frame_origins: string[];
}

/** The lines of a multi-line field, trimmed, empty ones left out. */
export function linesOf(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
