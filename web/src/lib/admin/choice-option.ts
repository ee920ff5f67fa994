/**
 * A choice of a select on the admin pages (a role, an organization), declared here rather than
 * imported from SelectField.svelte so the linter sees its type; SelectField takes it as it is.
 */
export interface ChoiceOption {
  value: string;
  label: string;
}
