// Starts and stops a throw-away PostgreSQL cluster for the test suite, so tests never
// depend on, or disturb, a server that may already be configured on the machine.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { appendFile, chmod, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const POSTGRES_INSTALL_ROOT = '/usr/lib/postgresql';
const POSTGRES_SYSTEM_USER = 'postgres';
const CLUSTER_SUPERUSER = 'merino';
const LISTEN_ADDRESS = '127.0.0.1';

const FREE_PORT_TIMEOUT_MS = 5_000;
const FILE_OWNERSHIP_TIMEOUT_MS = 15_000;
const INITDB_TIMEOUT_MS = 120_000;
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
/** Extra time the process timeout gives pg_ctl beyond its own `-t`, so pg_ctl can report first. */
const PG_CTL_GRACE_MS = 5_000;
/** The free port is found before postgres binds it, so another process can take it in between. */
const START_ATTEMPTS = 3;
const SERVER_LOG_TAIL_LINES = 40;
/** Linux limits a unix socket path (sun_path) to 107 bytes; postgres refuses longer ones. */
const UNIX_SOCKET_PATH_LIMIT = 107;

export interface PostgresCluster {
  /** Superuser URL of the cluster's `postgres` database, e.g. postgres://merino@127.0.0.1:54321/postgres. */
  adminUrl: string;
  /** Stops the server and removes its files. Safe to call more than once. */
  stop(): Promise<void>;
}

interface PostgresBinaries {
  version: string;
  initdb: string;
  pgCtl: string;
}

interface CommandOptions {
  timeoutMs: number;
  /** Whether to run as the `postgres` system user, which initdb and postgres need when we are root. */
  asClusterOwner: boolean;
}

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const binaries = await findPostgresBinaries();
  const runningAsRoot = process.getuid?.() === 0;

  const clusterRoot = await mkdtemp(path.join(os.tmpdir(), 'merino-postgres-'));
  const dataDirectory = path.join(clusterRoot, 'data');
  // Beside the data folder rather than in it, so the data folder holds only what postgres
  // itself manages.
  const serverLogFile = path.join(clusterRoot, 'server.log');
  const socketPath = path.join(dataDirectory, '.s.PGSQL.65535');
  if (Buffer.byteLength(socketPath) > UNIX_SOCKET_PATH_LIMIT) {
    await rm(clusterRoot, { recursive: true, force: true });
    throw new Error(
      `The temp folder path is too long for a PostgreSQL unix socket (${socketPath}); set TMPDIR to a shorter folder such as /tmp.`,
    );
  }

  let serverMayBeRunning = false;
  try {
    await mkdir(dataDirectory, { mode: 0o700 });
    if (runningAsRoot) {
      await assertTraversableByOtherUsers(path.dirname(clusterRoot));
      // mkdtemp creates 0700 folders; the postgres user must be able to pass through this one.
      await chmod(clusterRoot, 0o711);
      await runCommand('chown', ['-R', `${POSTGRES_SYSTEM_USER}:${POSTGRES_SYSTEM_USER}`, clusterRoot], {
        timeoutMs: FILE_OWNERSHIP_TIMEOUT_MS,
        asClusterOwner: false,
      });
    }

    await runCommand(
      binaries.initdb,
      [
        `--pgdata=${dataDirectory}`,
        '--auth=trust',
        `--username=${CLUSTER_SUPERUSER}`,
        '--encoding=UTF8',
        '--no-locale',
        // The cluster is thrown away after the run, so durability of its files is worthless.
        '--no-sync',
      ],
      { timeoutMs: INITDB_TIMEOUT_MS, asClusterOwner: runningAsRoot },
    );

    // Settings go into postgresql.conf rather than `pg_ctl -o`, because pg_ctl passes -o
    // through a shell and a folder path there would need shell quoting.
    await appendFile(path.join(dataDirectory, 'postgresql.conf'), clusterSettings(dataDirectory));

    for (let attempt = 1; ; attempt += 1) {
      const port = await findFreePort();
      const logLengthBeforeStart = await fileLength(serverLogFile);
      serverMayBeRunning = true;
      try {
        await runCommand(
          binaries.pgCtl,
          [
            'start',
            '-w',
            `--timeout=${Math.ceil(START_TIMEOUT_MS / 1000)}`,
            `--pgdata=${dataDirectory}`,
            `--log=${serverLogFile}`,
            // The port is the only setting that changes between attempts, and it is a bare number.
            `--options=-p ${port}`,
          ],
          { timeoutMs: START_TIMEOUT_MS + PG_CTL_GRACE_MS, asClusterOwner: runningAsRoot },
        );
      } catch (error) {
        const logOfThisAttempt = (await readFileOrEmpty(serverLogFile)).slice(logLengthBeforeStart);
        const portWasTaken = /could not bind|address already in use/i.test(logOfThisAttempt);
        if (portWasTaken && attempt < START_ATTEMPTS) {
          continue;
        }
        throw error;
      }

      return createClusterHandle({ binaries, clusterRoot, dataDirectory, port, runningAsRoot });
    }
  } catch (error) {
    const serverLogTail = tailLines(await readFileOrEmpty(serverLogFile), SERVER_LOG_TAIL_LINES);
    if (serverMayBeRunning) {
      stopServerImmediatelySync(binaries, dataDirectory, runningAsRoot);
    }
    await rm(clusterRoot, { recursive: true, force: true });
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Could not start a PostgreSQL ${binaries.version} test cluster: ${reason}` +
        (serverLogTail ? `\n--- server log (last ${SERVER_LOG_TAIL_LINES} lines) ---\n${serverLogTail}` : ''),
      { cause: error },
    );
  }
}

function clusterSettings(dataDirectory: string): string {
  const settings: Record<string, string> = {
    listen_addresses: quoteSetting(LISTEN_ADDRESS),
    // Keeping the socket inside the data folder avoids /var/run/postgresql, which may not
    // exist or may belong to a system cluster.
    unix_socket_directories: quoteSetting(dataDirectory),
    // Crash safety is pointless for a cluster that is deleted after the run, and these
    // make schema-heavy tests noticeably faster.
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    // Parallel test files each hold connection pools, which exceed the default of 100.
    max_connections: '200',
  };
  const lines = Object.entries(settings).map(([name, value]) => `${name} = ${value}`);
  return `\n# Added by test/support/postgres-cluster.ts\n${lines.join('\n')}\n`;
}

function quoteSetting(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

function createClusterHandle(options: {
  binaries: PostgresBinaries;
  clusterRoot: string;
  dataDirectory: string;
  port: number;
  runningAsRoot: boolean;
}): PostgresCluster {
  const { binaries, clusterRoot, dataDirectory, port, runningAsRoot } = options;

  // If the test process dies without running teardown, an orphaned postmaster would keep
  // the port and the temp folder forever; a synchronous exit hook is the last chance to
  // clean up.
  const stopOnProcessExit = (): void => {
    stopServerImmediatelySync(binaries, dataDirectory, runningAsRoot);
    rmSync(clusterRoot, { recursive: true, force: true });
  };
  process.once('exit', stopOnProcessExit);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      process.removeListener('exit', stopOnProcessExit);
      try {
        await runCommand(
          binaries.pgCtl,
          ['stop', '-w', '-m', 'fast', `--timeout=${Math.ceil(STOP_TIMEOUT_MS / 1000)}`, `--pgdata=${dataDirectory}`],
          { timeoutMs: STOP_TIMEOUT_MS + PG_CTL_GRACE_MS, asClusterOwner: runningAsRoot },
        );
      } catch (error) {
        // A server that will not stop politely must still not outlive the test run.
        stopServerImmediatelySync(binaries, dataDirectory, runningAsRoot);
        await rm(clusterRoot, { recursive: true, force: true });
        throw error;
      }
      await rm(clusterRoot, { recursive: true, force: true });
    })();
    return stopping;
  };

  return { adminUrl: `postgres://${CLUSTER_SUPERUSER}@${LISTEN_ADDRESS}:${port}/postgres`, stop };
}

async function findPostgresBinaries(): Promise<PostgresBinaries> {
  const versions = await readdir(POSTGRES_INSTALL_ROOT).catch(() => [] as string[]);
  const installed = versions
    .filter((version) => existsSync(path.join(POSTGRES_INSTALL_ROOT, version, 'bin', 'initdb')))
    .sort(compareVersionsDescending);
  const newest = installed[0];
  if (newest === undefined) {
    throw new Error(
      `No PostgreSQL server binaries found under ${POSTGRES_INSTALL_ROOT}/*/bin. ` +
        'Run `bash scripts/ensure-test-dependencies.sh` (it installs the Debian package "postgresql"), ' +
        'or set MERINO_TEST_POSTGRES_URL to the admin URL of an existing server.',
    );
  }
  const binDirectory = path.join(POSTGRES_INSTALL_ROOT, newest, 'bin');
  return { version: newest, initdb: path.join(binDirectory, 'initdb'), pgCtl: path.join(binDirectory, 'pg_ctl') };
}

/** Numeric, so that "10" sorts above "9.6" and a future "100" above "15". */
function compareVersionsDescending(left: string, right: string): number {
  const leftParts = left.split('.').map(Number);
  const rightParts = right.split('.').map(Number);
  for (let index = 0; index < Math.max(leftParts.length, rightParts.length); index += 1) {
    const difference = (rightParts[index] ?? 0) - (leftParts[index] ?? 0);
    if (difference !== 0 && !Number.isNaN(difference)) {
      return difference;
    }
  }
  return right.localeCompare(left);
}

/** Port 0 makes the kernel choose an unused port; we release it right away for postgres to bind. */
function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    const timer = setTimeout(() => {
      server.close();
      reject(new Error(`Timed out after ${FREE_PORT_TIMEOUT_MS} ms looking for a free TCP port`));
    }, FREE_PORT_TIMEOUT_MS);
    server.unref();
    server.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    server.listen({ port: 0, host: LISTEN_ADDRESS }, () => {
      const address = server.address();
      server.close(() => {
        clearTimeout(timer);
        if (address === null || typeof address === 'string') {
          reject(new Error('Could not read the port of a freshly bound TCP server'));
        } else {
          resolve(address.port);
        }
      });
    });
  });
}

/**
 * When we run as root, postgres runs as another user, so every folder above its data
 * folder must be enterable by "others". Failing early here gives a clearer message than
 * initdb's "could not change directory".
 */
async function assertTraversableByOtherUsers(folder: string): Promise<void> {
  let current = path.resolve(folder);
  for (;;) {
    const folderStatus = await stat(current);
    if ((folderStatus.mode & 0o001) === 0) {
      throw new Error(
        `The "${POSTGRES_SYSTEM_USER}" user cannot enter ${current}, which holds the test cluster; ` +
          'set TMPDIR to a folder every user can traverse, such as /tmp.',
      );
    }
    const parent = path.dirname(current);
    if (parent === current) {
      return;
    }
    current = parent;
  }
}

function runCommand(program: string, args: string[], options: CommandOptions): Promise<{ standardOutput: string }> {
  // initdb refuses to run as root, and a root-owned cluster would be unusual anyway.
  const [executable, fullArguments] = options.asClusterOwner
    ? ['runuser', ['-u', POSTGRES_SYSTEM_USER, '--', program, ...args]]
    : [program, args];
  const commandLine = [executable, ...fullArguments].join(' ');

  return new Promise((resolve, reject) => {
    execFile(
      executable,
      fullArguments,
      {
        timeout: options.timeoutMs,
        killSignal: 'SIGKILL',
        // The postgres user may not be able to enter the caller's working directory.
        cwd: os.tmpdir(),
        env: { ...process.env, LC_ALL: 'C' },
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, standardOutput, standardError) => {
        if (error === null) {
          resolve({ standardOutput });
          return;
        }
        const timedOut = error.killed === true && error.signal === 'SIGKILL';
        const outcome = timedOut ? `timed out after ${options.timeoutMs} ms` : `failed (${error.code ?? error.signal ?? 'unknown status'})`;
        const details = [standardError.trim(), standardOutput.trim()].filter(Boolean).join('\n');
        reject(new Error(`\`${commandLine}\` ${outcome}${details ? `:\n${details}` : ''}`));
      },
    );
  });
}

/** Synchronous so that it can run from a process 'exit' handler, where promises never settle. */
function stopServerImmediatelySync(binaries: PostgresBinaries, dataDirectory: string, runningAsRoot: boolean): void {
  if (!existsSync(path.join(dataDirectory, 'postmaster.pid'))) {
    return;
  }
  const args = ['stop', '-w', '-m', 'immediate', `--timeout=${Math.ceil(STOP_TIMEOUT_MS / 1000)}`, `--pgdata=${dataDirectory}`];
  const [executable, fullArguments] = runningAsRoot
    ? ['runuser', ['-u', POSTGRES_SYSTEM_USER, '--', binaries.pgCtl, ...args]]
    : [binaries.pgCtl, args];
  spawnSync(executable, fullArguments, { stdio: 'ignore', timeout: STOP_TIMEOUT_MS + PG_CTL_GRACE_MS, cwd: os.tmpdir() });
}

async function fileLength(file: string): Promise<number> {
  return (await readFileOrEmpty(file)).length;
}

async function readFileOrEmpty(file: string): Promise<string> {
  return readFile(file, 'utf8').catch(() => '');
}

function tailLines(text: string, count: number): string {
  return text.trimEnd().split('\n').slice(-count).join('\n');
}
