/**
 * Typed settings read from the environment once at start-up. A bad value stops the server with a
 * message naming the variable, instead of surfacing later as a confusing runtime failure. Each
 * setting is declared once, in settings-declarations.ts; this file turns that list into the
 * Settings type, the loader, and the rows of the README's settings table.
 */
import path from 'node:path';
import type { SettingValue } from './setting-declaration.js';
import { SETTINGS_DECLARATIONS } from './settings-declarations.js';
import { SettingsError } from './settings-error.js';

export { SettingsError } from './settings-error.js';
export type { LogLevel } from './settings-declarations.js';

type Declarations = typeof SETTINGS_DECLARATIONS;

export type Settings = { -readonly [Property in keyof Declarations]: SettingValue<Declarations[Property]> };

type Environment = Record<string, string | undefined>;

interface AnySettingDeclaration {
  readonly variable: string;
  readonly defaultText?: string;
  readonly read: (raw: string) => unknown;
}

/** An unset or blank variable reads as its default text, or as undefined when it has none. */
function readSetting(environment: Environment, declaration: AnySettingDeclaration): unknown {
  const raw = environment[declaration.variable];
  if (raw === undefined || raw.trim() === '') {
    return declaration.defaultText === undefined ? undefined : declaration.read(declaration.defaultText);
  }
  return declaration.read(raw);
}

/** A rule between two settings: the first administrator's password obeys the password rule. */
function checkAdminPassword(settings: Settings): void {
  const { adminPassword, passwordLengthMinimum } = settings;
  if (adminPassword !== undefined && adminPassword.length < passwordLengthMinimum) {
    throw new SettingsError('MERINO_ADMIN_PASSWORD', `must be at least ${passwordLengthMinimum} characters`);
  }
}

/**
 * Processes that share one PostgreSQL share its encrypted secrets, so they must share the key: a key
 * file generated in one process's DATA_DIR would leave every other process unable to read them.
 */
function checkSharedSecretKey(settings: Settings): void {
  if (settings.databaseUrl !== undefined && settings.secretKey === undefined) {
    throw new SettingsError(
      'MERINO_SECRET_KEY',
      'must be set when DATABASE_URL is set: every process sharing the database needs the same key to read the secrets stored in it, and a key file in one DATA_DIR is not shared',
    );
  }
}

export function loadSettings(environment: Environment = process.env): Settings {
  const declarations: Record<string, AnySettingDeclaration> = SETTINGS_DECLARATIONS;
  const settings = Object.fromEntries(
    Object.entries(declarations).map(([property, declaration]) => [property, readSetting(environment, declaration)]),
  ) as Settings;
  checkAdminPassword(settings);
  checkSharedSecretKey(settings);
  return settings;
}

/** PLUGINS_DIR, or the `plugins` folder of DATA_DIR when it is unset. */
export function pluginsDirectoryOf(settings: Pick<Settings, 'pluginsDirectory' | 'dataDirectory'>): string {
  return settings.pluginsDirectory ?? path.join(settings.dataDirectory, 'plugins');
}

export interface SettingDocumentation {
  variable: string;
  /** As the README shows it: a value in backticks, a word such as "generated", or — for none. */
  defaultValue: string;
  meaning: string;
}

/** The README's settings table, row by row, in declaration order. */
export function settingsDocumentation(): SettingDocumentation[] {
  const declarations: Record<string, AnySettingDeclaration & { meaning: string; documentedDefault?: string }> = SETTINGS_DECLARATIONS;
  return Object.values(declarations).map((declaration) => {
    const { defaultText, documentedDefault } = declaration;
    const shown = defaultText === undefined || defaultText === '' ? undefined : `\`${defaultText}\``;
    return { variable: `\`${declaration.variable}\``, defaultValue: documentedDefault ?? shown ?? '—', meaning: declaration.meaning };
  });
}
