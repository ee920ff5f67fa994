// What reading an organization's settings said, shared by the settings page and its sections.

/** What reading the settings said: allowed, or refused with the status and message (403 for a member who is not an admin). */
export type SettingsAccess = { allowed: true } | { allowed: false; status: number; message: string };
