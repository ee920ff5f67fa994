/**
 * Discovers plugin files in a folder at start-up: every `.ts`/`.js` file not starting with `_`
 * (and not a test) default-exports one definition; in an installation's own plugin folder
 * (PLUGINS_DIR), only plain JavaScript (`.js`, `.mjs`, `.cjs`), which needs no build. Each is
 * validated; a file that fails to load or validate is logged and skipped, so one broken plugin
 * never stops the server.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { registerPluginApiSpecifier } from './plugin-api-specifier.js';

export interface RegistryLog {
  info(message: string): void;
  error(message: string): void;
}

export interface DiscoveryOptions<Definition extends { name: string }> {
  directory: string;
  /** Singular, for log lines: `Loaded tool: weather`. */
  kind: string;
  /** Throws an Error whose message says what is wrong. */
  validate(value: unknown): Definition;
  log: RegistryLog;
  /** True for PLUGINS_DIR: plain JavaScript only, and logged as `plugins/tools/x.mjs`. */
  installed?: boolean;
  /** Names the built-in plugins hold: an installed plugin may not take one over. */
  reserved?: ReadonlySet<string>;
}

function isPluginFile(fileName: string, javaScriptOnly: boolean): boolean {
  if (fileName.startsWith('_') || fileName.endsWith('.d.ts')) return false;
  if (/\.test\.[cm]?[jt]s$/.test(fileName)) return false;
  return javaScriptOnly ? /\.[cm]?js$/.test(fileName) : /\.[cm]?[jt]s$/.test(fileName);
}

async function listPluginFiles(directory: string, javaScriptOnly: boolean): Promise<string[]> {
  try {
    return (await readdir(directory)).filter((fileName) => isPluginFile(fileName, javaScriptOnly)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export async function discoverPlugins<Definition extends { name: string }>(options: DiscoveryOptions<Definition>): Promise<Definition[]> {
  const loaded = new Map<string, Definition>();
  const installed = options.installed === true;
  const folder = `${installed ? 'plugins/' : ''}${path.basename(options.directory)}`;
  const fileNames = await listPluginFiles(options.directory, installed);
  // Only when there is an installed plugin to load: once registered, every later import of the
  // process goes through Node's loader thread, which made a server start about a second slower.
  if (installed && fileNames.length > 0) registerPluginApiSpecifier();
  for (const fileName of fileNames) {
    const label = `${folder}/${fileName}`;
    try {
      const module = (await import(pathToFileURL(path.join(options.directory, fileName)).href)) as { default?: unknown };
      const definition = options.validate(module.default);
      if (options.reserved?.has(definition.name)) throw new Error(`a built-in ${options.kind} is already named "${definition.name}"`);
      if (loaded.has(definition.name)) throw new Error(`another file already defines ${options.kind} "${definition.name}"`);
      loaded.set(definition.name, definition);
      options.log.info(`Loaded ${options.kind}: ${definition.name}`);
    } catch (error) {
      options.log.error(`Failed to load ${label}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return [...loaded.values()];
}

/** Helpers for validators: each throws with a message naming the field. */
export function requireText(value: Record<string, unknown>, field: string, pattern?: RegExp): string {
  const text = value[field];
  if (typeof text !== 'string' || text.trim() === '') throw new Error(`"${field}" must be a non-empty string`);
  if (pattern && !pattern.test(text)) throw new Error(`"${field}" must match ${pattern}`);
  return text;
}

export function requireFunction(value: Record<string, unknown>, field: string, optional = false): void {
  if (optional && value[field] === undefined) return;
  if (typeof value[field] !== 'function') throw new Error(`"${field}" must be a function`);
}

export function requireObject(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${what} must be an object`);
  return value as Record<string, unknown>;
}
