/** Who is making a request, as established by authentication. */
import type { OrganizationRole } from '../store/schema.js';

export interface Identity {
  userId: number;
  email: string;
  name: string;
  organizationId: number;
  role: OrganizationRole;
  isSystemAdmin: boolean;
  /**
   * How the identity was established; `assistant_owner` when a pipeline acts on an owner's behalf,
   * `command_line` when `merino <command>` acts as the system (src/commands/).
   */
  credential: 'session' | 'api_key' | 'assistant_owner' | 'command_line';
  credentialId: number;
  /** True only for an API key a system admin marked as a trusted front end's (see permissions.ts). */
  trustedFrontEnd: boolean;
  /** Set on a trusted front end's key that asked for a "Sources" block of signed links (docs/open-webui.md). */
  sourceLinks?: boolean;
  /** True while the user holds a one-time password an admin set (requireOwnPasswordChosen). */
  mustChangePassword?: boolean;
}
