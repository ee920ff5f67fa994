/**
 * What the template dialogs share: the visibility choices a user may pick (system-wide only for
 * system admins), and tags typed as one comma-separated line.
 */
import type { TemplateVisibility } from '$lib/api/templates';
import { t } from '$lib/i18n/translate.svelte';
import { currentUser } from '$lib/session/session.svelte';

export interface VisibilityOption {
  value: TemplateVisibility;
  label: string;
}

/** Personal and organization for everyone who uses templates; system-wide for system admins too. */
export function visibilityOptions(): VisibilityOption[] {
  const options: VisibilityOption[] = [
    { value: 'personal', label: t('templates.personal') },
    { value: 'organization', label: t('templates.organization') },
  ];
  if (currentUser()?.capabilities.manage_organizations) options.push({ value: 'system', label: t('templates.system') });
  return options;
}

/** "biology, Grade 9 ," → ["biology", "Grade 9"]. */
export function tagsOf(line: string): string[] {
  return line
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}
