/**
 * What one setting is: its environment variable, what it means, its default and how its text is
 * read. The settings declarations (settings-declarations.ts) is a list of these, and the Settings type, the
 * loader and the README's settings table all come from that one list. The constructors below are
 * the kinds of setting Merino has; each reader throws a SettingsError naming the variable.
 */
import path from 'node:path';
import { trimCharactersEnd } from '../text-trimming/trim-characters.js';
import { SettingsError } from './settings-error.js';

export interface SettingDeclaration<Value> {
  /** The environment variable: a published interface, never renamed. */
  readonly variable: string;
  /** What the setting does, as the README's settings table says it. */
  readonly meaning: string;
  /** Read as if the variable were set to this when it is unset or blank; without it, the setting is then undefined. */
  readonly defaultText?: string;
  /** The README's default column when the default is not a value (e.g. "generated"). */
  readonly documentedDefault?: string;
  /** Reads the variable's value as set (never blank, not trimmed) or the default text. */
  readonly read: (raw: string) => Value;
}

/** A setting that always has a value. */
export interface DefaultedSettingDeclaration<Value> extends SettingDeclaration<Value> {
  readonly defaultText: string;
}

/** The value a declaration gives: undefined is possible only for a setting without a default. */
export type SettingValue<Declaration> =
  Declaration extends DefaultedSettingDeclaration<infer Value>
    ? Value
    : Declaration extends SettingDeclaration<infer Value>
      ? Value | undefined
      : never;

interface Described {
  variable: string;
  meaning: string;
}

export interface IntegerSettingOptions extends Described {
  defaultValue: number;
  minimum: number;
  maximum: number;
}

/** A whole number within bounds, e.g. a limit or a timeout. */
export function integerSetting(options: IntegerSettingOptions): DefaultedSettingDeclaration<number> {
  const { variable, defaultValue, minimum, maximum } = options;
  return {
    variable,
    meaning: options.meaning,
    defaultText: String(defaultValue),
    read: (raw) => {
      if (!/^\d+$/.test(raw.trim())) throw new SettingsError(variable, `expected a whole number, got "${raw}"`);
      const value = Number(raw.trim());
      if (value < minimum || value > maximum) {
        throw new SettingsError(variable, `expected a number from ${minimum} to ${maximum}, got ${value}`);
      }
      return value;
    },
  };
}

/** true/1 or false/0, in any case. */
export function booleanSetting(options: Described & { defaultValue: boolean }): DefaultedSettingDeclaration<boolean> {
  const { variable } = options;
  return {
    variable,
    meaning: options.meaning,
    defaultText: String(options.defaultValue),
    read: (raw) => {
      const value = raw.trim().toLowerCase();
      if (value === 'true' || value === '1') return true;
      if (value === 'false' || value === '0') return false;
      throw new SettingsError(variable, 'must be true or false');
    },
  };
}

/** Free text, trimmed; undefined when unset. */
export function textSetting(options: Described & { documentedDefault?: string }): SettingDeclaration<string> {
  return { ...options, read: (raw) => raw.trim() };
}

/** A folder, resolved against the working directory when the settings are read. */
export function folderSetting(options: Described & { defaultText: string }): DefaultedSettingDeclaration<string> {
  return { ...options, read: (raw) => path.resolve(raw.trim()) };
}

function readBaseUrl(variable: string, raw: string): string {
  const text = raw.trim();
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new SettingsError(variable, 'expected an http:// or https:// URL');
  }
  return trimCharactersEnd(text, '/');
}

/** An http(s) URL without its trailing slash. */
export function urlSetting(options: Described & { defaultText: string }): DefaultedSettingDeclaration<string>;
export function urlSetting(options: Described & { documentedDefault?: string }): SettingDeclaration<string>;
export function urlSetting(options: Described & { defaultText?: string; documentedDefault?: string }): SettingDeclaration<string> {
  return { ...options, read: (raw) => readBaseUrl(options.variable, raw) };
}

/** A comma-separated list, items trimmed, empty items dropped; an unset list is empty unless it has a default. */
export function readList(raw: string): string[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** An origin as browsers send it: scheme, host and optional port, nothing else. */
export function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}
