/**
 * What one command of `merino <command>` is: its name, a one-line summary, its options (each with
 * the words `--help` prints), whether it takes file arguments, and what it does. The runner
 * (command-runner.ts) parses the command line with node:util's parseArgs from these declarations,
 * so a command never reads process.argv itself.
 */
import type { CommandSession } from './command-session.js';

export interface CommandOption {
  type: 'string' | 'boolean';
  /** What `--help` says of the option; for a string option, the value's name first (`<slug>`). */
  description: string;
  /** For a string option: the value's placeholder in the usage line. */
  value?: string;
  required?: boolean;
}

/** What parseArgs read: each string option's value, each flag, and the positional arguments. */
export interface ParsedCommandLine {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

export interface AdminCommand {
  name: string;
  summary: string;
  options: Record<string, CommandOption>;
  /** The positional arguments' placeholder (`<files…>`); without it the command takes none. */
  positionals?: { placeholder: string; minimum: number };
  /** What the store must be for this command: migrated (the default), or as it is (status and backup must not change it). */
  migrateStore?: boolean;
  /** Does the work; resolves to the exit status (0 ok, 1 a failure the command reported). */
  run(session: CommandSession, commandLine: ParsedCommandLine): Promise<number>;
}

/** A command line that names no known command, a missing or malformed option: exit status 2, with the usage. */
export class CommandUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandUsageError';
  }
}

/** A string option's value; the runner has already refused a missing required option. */
export function stringOption(commandLine: ParsedCommandLine, name: string): string | undefined {
  const value = commandLine.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A required string option's value. */
export function requiredOption(commandLine: ParsedCommandLine, name: string): string {
  const value = stringOption(commandLine, name);
  if (value === undefined) throw new CommandUsageError(`--${name} is required.`);
  return value;
}
