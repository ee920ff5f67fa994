/** How a user account is shown over the API: never the password hash. */
import type { UserWithRole } from '../store/users-repository.js';

export interface UserView {
  id: number;
  email: string;
  name: string;
  organization_id: number;
  role: string;
  is_system_admin: boolean;
  disabled: boolean;
  created_at: string;
  updated_at: string;
}

export function userView(user: UserWithRole): UserView {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    organization_id: user.organization_id,
    role: user.role,
    is_system_admin: user.is_system_admin === 1,
    disabled: user.disabled === 1,
    created_at: user.created_at,
    updated_at: user.updated_at,
  };
}
