/** Who is making a request, as established by authentication. */
import type { OrganizationRole } from '../store/schema.js';

export interface Identity {
  userId: number;
  email: string;
  name: string;
  organizationId: number;
  role: OrganizationRole;
  isSystemAdmin: boolean;
  credential: 'session' | 'api_key';
  credentialId: number;
}
