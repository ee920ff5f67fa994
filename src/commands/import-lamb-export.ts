/**
 * `merino import-lamb-export --owner <email|id> <files…>`: each LAMB assistant export file becomes
 * a new assistant of the owner, through the assistants' import (the same checks as
 * POST /api/assistants/import, made as the owner: permission, installed plugins, assistant tools
 * and files the owner may use). Each file is reported on its own line; one that fails does not
 * stop the others, and the exit status is 1 when any failed.
 */
import { readFile, stat } from 'node:fs/promises';
import { identityOf } from '../auth/authenticator.js';
import type { CallContext } from '../auth/call-context.js';
import { AppError } from '../errors/app-error.js';
import { pluginsDirectoryOf } from '../config/settings.js';
import type { Services } from '../services.js';
import { requiredOption, type AdminCommand } from './admin-command.js';
import { userNamed, type CommandSession } from './command-session.js';

/** A LAMB export is a few kilobytes; anything this large is not one, and is refused before it is read. */
const EXPORT_FILE_BYTES_MAXIMUM = 10 * 1024 * 1024;

async function exportDocument(file: string): Promise<unknown> {
  const size = (await stat(file)).size;
  if (size > EXPORT_FILE_BYTES_MAXIMUM)
    throw new Error(`is ${size} bytes, more than an assistant export can be (${EXPORT_FILE_BYTES_MAXIMUM}).`);
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw new AppError('invalid_json', 'is not JSON.');
  }
}

/** What went wrong with one file, in words: the service's message, or the file system's without its stack. */
function reasonOf(error: unknown): string {
  if (error instanceof AppError) return `${error.message} (${error.code})`;
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT') return 'no such file.';
  if (code === 'EISDIR') return 'is a folder, not a file.';
  return error instanceof Error ? error.message : String(error);
}

async function importEach(session: CommandSession, services: Services, owner: CallContext, files: readonly string[]): Promise<number> {
  let failed = 0;
  for (const file of files) {
    try {
      const assistant = await services.assistantTransfer.import(owner, await exportDocument(file));
      session.print(`${file}: imported as assistant ${assistant.id} "${assistant.name}"`);
    } catch (error) {
      failed += 1;
      process.stderr.write(`${file}: ${reasonOf(error)}\n`);
    }
  }
  session.print(`${files.length - failed} imported, ${failed} failed.`);
  return failed === 0 ? 0 : 1;
}

export const importLambExportCommand: AdminCommand = {
  name: 'import-lamb-export',
  summary: 'import LAMB assistant export files as new assistants of a user',
  options: {
    owner: { type: 'string', value: '<email|id>', description: 'the user who will own the imported assistants', required: true },
  },
  positionals: { placeholder: '<files…>', minimum: 1 },
  async run(session, commandLine) {
    const ownerRow = await userNamed(session.store, requiredOption(commandLine, 'owner'));
    if (ownerRow.disabled === 1) throw new AppError('forbidden', `${ownerRow.email} is disabled; enable the account first.`);
    const owner: CallContext = { identity: identityOf(ownerRow, 'command_line', 0), requestId: session.system.requestId };
    // Loaded here, not at the top: every other command (and `merino help`) runs without the services' modules.
    const { DEFAULT_PLUGIN_DIRECTORIES, loadRegistries } = await import('../pipeline/plugin-loading/registries.js');
    const { createServices } = await import('../services.js');
    // Plugins load as the server loads them, so an import is checked against the same installed tools; their lines stay quiet.
    const registries = await loadRegistries(
      { info: () => undefined, error: (line) => process.stderr.write(`${line}\n`) },
      DEFAULT_PLUGIN_DIRECTORIES,
      pluginsDirectoryOf(session.settings),
    );
    const services = createServices(session.store, session.settings, registries);
    try {
      return await importEach(session, services, owner, commandLine.positionals);
    } finally {
      await services.runRecords.close();
      await services.blobs.close();
    }
  },
};
