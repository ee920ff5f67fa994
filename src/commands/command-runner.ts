/**
 * Runs one admin command of `merino <command>`: reads its command line with node:util's parseArgs
 * from the command's declared options, answers `--help`, opens the store the server uses, runs
 * the command, and turns every outcome into an exit status and readable words: 0 done, 1 a
 * failure (an AppError's message, an unreachable store, a bad setting), 2 a usage error (with the
 * command's usage). No stack trace is ever printed: a fault Merino did not foresee prints its
 * message only.
 */
import { parseArgs } from 'node:util';
import { loadSettings, SettingsError } from '../config/settings.js';
import { AppError } from '../errors/app-error.js';
import { openStore } from '../store/store.js';
import { CommandUsageError, type AdminCommand, type ParsedCommandLine } from './admin-command.js';
import { ADMIN_COMMANDS } from './admin-commands.js';
import { systemContextFor } from './command-session.js';

const EXIT_OK = 0;
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

/** Whether `merino <first>` names an admin command (or asks for the list of them). */
export function isAdminCommand(first: string | undefined): boolean {
  return first === 'help' || first === '--help' || ADMIN_COMMANDS.some((command) => command.name === first);
}

function optionUsage(name: string, option: AdminCommand['options'][string]): string {
  const written = option.type === 'string' ? `--${name} ${option.value ?? '<value>'}` : `--${name}`;
  return option.required === true ? written : `[${written}]`;
}

function usageLine(command: AdminCommand): string {
  const options = Object.entries(command.options).map(([name, option]) => optionUsage(name, option));
  return ['usage: merino', command.name, ...options, ...(command.positionals ? [command.positionals.placeholder] : [])].join(' ');
}

/** What `merino <command> --help` prints. */
function helpOf(command: AdminCommand): string {
  const width = Math.max(...Object.keys(command.options).map((name) => name.length + 2), 6);
  const lines = Object.entries(command.options).map(([name, option]) => `  --${name.padEnd(width)}  ${option.description}`);
  return [usageLine(command), '', command.summary, '', 'options:', ...lines, `  --${'help'.padEnd(width)}  show this help`, ''].join('\n');
}

/** What `merino help` prints: every admin command with its summary. */
function commandList(): string {
  const width = Math.max(...ADMIN_COMMANDS.map((command) => command.name.length));
  return [
    'usage: merino <command> [options]   (merino <command> --help for its options)',
    '',
    '  serve                  start the server (the default)',
    '  worker                 ingest documents, without HTTP',
    '  storage copy           copy every blob between storage drivers',
    ...ADMIN_COMMANDS.map((command) => `  ${command.name.padEnd(Math.max(width, 21))}  ${command.summary}`),
    '',
    'Every command reads the settings the server reads (DATABASE_URL, DATA_DIR, …); see docs/command-line.md.',
    '',
  ].join('\n');
}

/** The command line of `command`, or a CommandUsageError naming what is wrong with it. */
function parseCommandLine(command: AdminCommand, argumentsGiven: string[]): ParsedCommandLine & { help: boolean } {
  const options = Object.fromEntries(Object.entries(command.options).map(([name, option]) => [name, { type: option.type }]));
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    const result = parseArgs({
      args: argumentsGiven,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: command.positionals !== undefined,
      strict: true,
    });
    parsed = { values: result.values, positionals: result.positionals };
  } catch (error) {
    // parseArgs says what is wrong in words ("Unknown option '--x'"); its hints mention `--`, which only confuses here.
    const reason = error instanceof Error ? (error.message.split('. ')[0] ?? error.message) : String(error);
    throw new CommandUsageError(reason.endsWith('.') ? reason : `${reason}.`);
  }
  if (parsed.values.help === true) return { values: parsed.values, positionals: parsed.positionals, help: true };
  for (const [name, option] of Object.entries(command.options)) {
    if (option.required === true && parsed.values[name] === undefined) throw new CommandUsageError(`--${name} is required.`);
  }
  const minimum = command.positionals?.minimum ?? 0;
  if (parsed.positionals.length < minimum) throw new CommandUsageError(`Missing ${command.positionals!.placeholder}.`);
  return { values: parsed.values, positionals: parsed.positionals, help: false };
}

async function runParsed(command: AdminCommand, commandLine: ParsedCommandLine): Promise<number> {
  const settings = loadSettings();
  const store = await openStore({
    databaseUrl: settings.databaseUrl,
    dataDirectory: settings.dataDirectory,
    poolSize: 2,
    migrate: command.migrateStore ?? true,
  });
  try {
    const system = await systemContextFor(store, command.name, command.migrateStore ?? true);
    return await command.run({ settings, store, system, print: (line) => process.stdout.write(`${line}\n`) }, commandLine);
  } finally {
    await store.close();
  }
}

/** The words for a failure: an AppError's or a setting's message as it is; anything else by its message, never its stack. */
function failureWords(error: unknown): string {
  if (error instanceof AppError) return `${error.message} (${error.code})`;
  if (error instanceof SettingsError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** Runs `merino <argumentsGiven…>`, whose first word isAdminCommand accepted; resolves to the exit status. */
export async function runAdminCommand(argumentsGiven: readonly string[]): Promise<number> {
  const [name, ...rest] = argumentsGiven;
  const command = ADMIN_COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) {
    process.stdout.write(commandList());
    return EXIT_OK;
  }
  let commandLine: ParsedCommandLine & { help: boolean };
  try {
    commandLine = parseCommandLine(command, rest);
  } catch (error) {
    process.stderr.write(`merino ${command.name}: ${failureWords(error)}\n${usageLine(command)}\n`);
    return EXIT_USAGE;
  }
  if (commandLine.help) {
    process.stdout.write(helpOf(command));
    return EXIT_OK;
  }
  try {
    return await runParsed(command, commandLine);
  } catch (error) {
    if (error instanceof CommandUsageError) {
      process.stderr.write(`merino ${command.name}: ${error.message}\n${usageLine(command)}\n`);
      return EXIT_USAGE;
    }
    process.stderr.write(`merino ${command.name}: ${failureWords(error)}\n`);
    return EXIT_FAILURE;
  }
}
