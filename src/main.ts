#!/usr/bin/env node
/**
 * The `merino` command. `merino serve` (the default): settings → store (migrated) → first admin →
 * leftovers of killed uploads swept (and again every UPLOAD_SWEEP_INTERVAL_MS) → HTTP server → ingestion runner unless INGESTION_IN_WEB is
 * false (it first takes back the jobs of this machine's dead processes); and a graceful shutdown on
 * SIGINT/SIGTERM that first fails readiness (SHUTDOWN_DRAIN_DELAY_MS), then stops accepting
 * requests, lets running ones and the ingestion job in hand finish (streams get
 * SHUTDOWN_STREAM_GRACE_MS, then end with a clear error), then closes the store. `merino worker`: the same without HTTP, ingestion only, under the
 * same leases. `merino storage copy --from A --to B`: copies every blob between storage drivers
 * and verifies the hashes (docs/blob-storage.md). `merino <admin command>` (create-user, backup, …; `merino help`
 * lists them): src/commands/, docs/command-line.md.
 */
// Loaded on demand: an admin command needs neither the HTTP app nor the server's start-up, and a
// server none of the admin commands (loading them took 0.18 s of CPU on a busy machine).
const SERVER_COMMANDS: ReadonlyArray<string | undefined> = [undefined, 'serve', 'worker', 'storage'];

async function runCommandLine(commandLine: string[]): Promise<void> {
  if (!SERVER_COMMANDS.includes(commandLine[0])) {
    const { isAdminCommand, runAdminCommand } = await import('./commands/command-runner.js');
    if (isAdminCommand(commandLine[0])) {
      // The command closes what it opened, so the process ends by itself once its output is written.
      process.exitCode = await runAdminCommand(commandLine);
      return;
    }
  }
  const { startMerino } = await import('./process/server-start.js');
  startMerino(commandLine).catch((error: unknown) => {
    process.stderr.write(`Merino failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

await runCommandLine(process.argv.slice(2));
