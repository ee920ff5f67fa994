/**
 * What `merino serve`, `merino worker` and `merino storage copy` do, loaded by main.ts only for
 * those commands, so that an admin command or `merino help` does not load the HTTP side.
 */
import { bootstrapAdmin, type BootstrapResult } from '../auth/admin-bootstrap.js';
import { loadSettings, pluginsDirectoryOf, SettingsError, type Settings } from '../config/settings.js';
import { startBackgroundWork, stopBackgroundWork } from './background-work.js';
import { startLeftoverSweeps, sweepCrashLeftovers } from './crash-leftovers.js';
import { buildApp } from '../http/app.js';
import { keepPromptJson } from '../pipeline/conversation/message-json.js';
import { limitHeapGrowth } from './heap-growth-limit.js';
import { releaseMemoryWhenIdle } from './idle-memory-release.js';
import { createLogger } from '../http/logger.js';
import { DEFAULT_PLUGIN_DIRECTORIES, loadRegistries } from '../pipeline/plugin-loading/registries.js';
import { createServices } from '../services.js';
import { installProcessPolicy } from './process-policy.js';
import { deferSignalsUntilStarted } from './stop-signals.js';
import type { ServerDrain } from '../health/server-drain.js';
import { copyBlobs } from '../blobs/blob-copy.js';
import { openBlobStorage } from '../blobs/open-blob-storage.js';
import { openStore, type Store } from '../store/store.js';

/** Printed straight to the console, once: the generated password must not pass through the logger. */
function announceAdmin(result: BootstrapResult, settings: Settings): void {
  if (!result.created) return;
  if (result.generatedPassword === undefined) {
    process.stdout.write(`\nMerino created the administrator ${result.email} with the password from MERINO_ADMIN_PASSWORD.\n\n`);
    return;
  }
  process.stdout.write(
    [
      '',
      '  Merino created the first administrator. This password is shown only now:',
      `    email:    ${result.email}`,
      `    password: ${result.generatedPassword}`,
      `  Log in at http://${settings.host}:${settings.port}/ (the web app); the API is described at /docs.`,
      '',
      '',
    ].join('\n'),
  );
}

type Command = { name: 'serve' } | { name: 'worker' } | { name: 'storage-copy'; from: string; to: string };

const USAGE =
  'usage: merino [serve | worker | storage copy --from <local|postgres|s3://…> --to <local|postgres|s3://…> | <command> (merino help lists them)]';

/** Reads the command line; exits with the usage line (status 64) when it names no known command. */
function parseCommand(argumentsGiven: readonly string[]): Command {
  const [first, second, ...rest] = argumentsGiven;
  if (first === undefined || first === 'serve') return { name: 'serve' };
  if (first === 'worker') return { name: 'worker' };
  if (first === 'storage' && second === 'copy') {
    const options = new Map<string, string>();
    for (let index = 0; index < rest.length; index += 2) options.set(rest[index] ?? '', rest[index + 1] ?? '');
    const from = options.get('--from');
    const to = options.get('--to');
    if (from && to && from !== to && options.size === 2) return { name: 'storage-copy', from, to };
  }
  process.stderr.write(`${USAGE}\n`);
  process.exit(64);
}

function readSettings(): Settings {
  try {
    return loadSettings();
  } catch (error) {
    if (error instanceof SettingsError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
}

/** The store as the settings describe it, migrated; the test server opens its own the same way. */
export async function openMigratedStore(settings: Settings): Promise<Store> {
  return openStore({
    databaseUrl: settings.databaseUrl,
    dataDirectory: settings.dataDirectory,
    poolSize: settings.databasePoolSize,
    statementCacheSize: settings.sqliteStatementCacheSize,
    preparedStatementsMaximum: settings.postgresPreparedStatementsMaximum,
    cacheMegabytes: settings.sqliteCacheMegabytes,
    checkpoints: {
      intervalMilliseconds: settings.sqliteCheckpointIntervalMilliseconds,
      backstopPages: settings.sqliteBackstopCheckpointPages,
    },
  });
}

/** Copies every blob from one driver to the other; exit status 0 when every copy matches its source, 1 otherwise. */
async function copyStorage(command: { from: string; to: string }): Promise<void> {
  const settings = readSettings();
  const store = await openMigratedStore(settings);
  const from = openBlobStorage(command.from, store, settings);
  const to = openBlobStorage(command.to, store, settings);
  try {
    const report = await copyBlobs(from, to);
    process.stdout.write(
      `copied ${report.copied} blobs (${report.bytesCopied} bytes), ${report.present} already present, ${report.mismatches.length} mismatches\n`,
    );
    for (const key of report.mismatches) process.stdout.write(`mismatch: ${key} differs between ${from.driver} and ${to.driver}\n`);
    process.exitCode = report.mismatches.length === 0 ? 0 : 1;
  } finally {
    await from.close();
    await to.close();
    await store.close();
  }
}

/** Streams are ended this long before the shutdown deadline at the latest, so their error chunk is written before the exit. */
const STREAM_END_MARGIN_MILLISECONDS = 1_000;

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/**
 * The HTTP side of a graceful stop: readiness already fails; after the drain delay the listener
 * closes and requests in flight finish, and streams still running past their grace end with
 * `server_shutting_down` so no client is left with a cut connection and no explanation.
 */
async function closeListener(app: Awaited<ReturnType<typeof buildApp>>, drain: ServerDrain, settings: Settings): Promise<void> {
  await sleep(settings.shutdownDrainDelayMilliseconds);
  const latest = settings.shutdownTimeoutMilliseconds - settings.shutdownDrainDelayMilliseconds - STREAM_END_MARGIN_MILLISECONDS;
  const streamsEnd = setTimeout(() => drain.endStreams(), Math.max(0, Math.min(settings.shutdownStreamGraceMilliseconds, latest)));
  try {
    await app.close();
  } finally {
    clearTimeout(streamsEnd);
  }
}

/** `merino serve`, `merino worker` and `merino storage copy`: runs until a stop signal (or the copy ends). */
export async function startMerino(commandLine: readonly string[]): Promise<void> {
  const command = parseCommand(commandLine);
  if (command.name === 'storage-copy') return copyStorage(command);
  const settings = readSettings();
  const logger = createLogger(settings.logLevel);
  installProcessPolicy(logger);
  limitHeapGrowth(settings.heapGrowthPercent);
  keepPromptJson(settings.promptJsonCacheCharactersMaximum);
  const signals = deferSignalsUntilStarted(logger);
  const store = await openMigratedStore(settings);
  logger.info({ dialect: store.dialect }, 'store ready');
  const bootstrap = await bootstrapAdmin(store.db, settings.adminEmail, settings.adminPassword, settings.passwordHashCost);
  const registries = await loadRegistries(
    { info: (message) => logger.info(message), error: (message) => logger.error(message) },
    DEFAULT_PLUGIN_DIRECTORIES,
    pluginsDirectoryOf(settings),
  );
  const services = createServices(store, settings, registries);
  logger.info({ driver: services.blobs.driver }, 'blob storage ready');
  await sweepCrashLeftovers(services, logger);
  // Workers sweep too: the sweep is the fleet's, run by whichever process claims it, and a worker shares the store and storage.
  const leftoverSweeps = startLeftoverSweeps(services, logger);
  const serving = command.name === 'serve';
  const app = serving ? await buildApp(services, { logger }) : undefined;
  await app?.listen({ host: settings.host, port: settings.port });
  if (app !== undefined) releaseMemoryWhenIdle(app.server, { idleMilliseconds: settings.idleMemoryReleaseMilliseconds, logger });
  startBackgroundWork(services, logger, { serving, ingesting: !serving || settings.ingestionInWeb });
  if (serving) announceAdmin(bootstrap, settings);
  else logger.info({ runner: services.ingestionRunner.owner }, 'worker ready: ingesting documents');

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const deadline = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, settings.shutdownTimeoutMilliseconds);
    deadline.unref();
    services.drain.begin();
    if (app !== undefined) await closeListener(app, services.drain, settings);
    await leftoverSweeps.stop();
    await stopBackgroundWork(services);
    await store.close();
    logger.info('stopped');
    process.exit(0);
  };
  signals.started((signal) => void stop(signal));
}
