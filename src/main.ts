/**
 * Start-up: settings → store (migrated) → first admin → leftovers of killed uploads swept → HTTP
 * server → ingestion runner (which first takes back the jobs of this machine's dead processes); and a
 * graceful shutdown on SIGINT/SIGTERM that stops accepting requests, lets running ones and the
 * ingestion job in hand finish, then closes the store.
 */
import { bootstrapAdmin, type BootstrapResult } from './auth/admin-bootstrap.js';
import { loadSettings, SettingsError, type Settings } from './config/settings.js';
import { sweepCrashLeftovers } from './crash-leftovers.js';
import { buildApp } from './http/app.js';
import { createLogger } from './http/logger.js';
import { loadRegistries } from './pipeline/registries.js';
import { createServices } from './services.js';
import { installProcessPolicy } from './process-policy.js';
import { openStore } from './store/store.js';

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

async function start(): Promise<void> {
  let settings: Settings;
  try {
    settings = loadSettings();
  } catch (error) {
    if (error instanceof SettingsError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78);
    }
    throw error;
  }
  const logger = createLogger(settings.logLevel);
  installProcessPolicy(logger);
  const store = await openStore({
    databaseUrl: settings.databaseUrl,
    dataDirectory: settings.dataDirectory,
    poolSize: settings.databasePoolSize,
  });
  logger.info({ dialect: store.dialect }, 'store ready');
  const bootstrap = await bootstrapAdmin(store.db, settings.adminEmail, settings.adminPassword);
  const registries = await loadRegistries({ info: (message) => logger.info(message), error: (message) => logger.error(message) });
  const services = createServices(store, settings, registries);
  await sweepCrashLeftovers(services, logger);
  const app = await buildApp(services, { logger });
  await app.listen({ host: settings.host, port: settings.port });
  services.ingestionRunner.start(logger);
  services.chatRetentionPurger.start(logger);
  announceAdmin(bootstrap, settings);

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
    await app.close();
    // The job in hand finishes (or, past the deadline, is left to expire and be resumed by the next runner).
    await services.ingestionRunner.stop();
    await services.chatRetentionPurger.stop();
    await store.close();
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

start().catch((error: unknown) => {
  process.stderr.write(`Merino failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
