/** How a user account is shown over the API (UserView, declared by its schema in user-schemas.ts): never the password hash. */
import type { UserWithRole } from '../store/users-repository.js';
import type { UserView } from './user-schemas.js';

export function userView(user: UserWithRole): UserView {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    organization_id: user.organization_id,
    role: user.role,
    is_system_admin: user.is_system_admin === 1,
    disabled: user.disabled === 1,
    must_change_credentials: user.must_change_password === 1,
    created_at: user.created_at,
    updated_at: user.updated_at,
  };
}
