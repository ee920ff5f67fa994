/**
 * Whether the signed-in user may change a rubric, by the server's rule (decideRubric in
 * src/auth/permissions.ts): its owner, an admin of its organization, or a system admin. Everyone
 * else who can open it (a member reading a shared rubric) gets the read-only view; the server
 * refuses their changes anyway.
 */
import type { CurrentUser } from '$lib/api/session';
import type { Rubric } from '$lib/api/rubrics';

export function mayChangeRubric(user: CurrentUser | undefined, rubric: Pick<Rubric, 'is_mine' | 'organization_id'>): boolean {
  if (rubric.is_mine) return true;
  if (!user) return false;
  return user.is_system_admin || (user.role === 'admin' && user.organization_id === rubric.organization_id);
}
