/**
 * The `local` blob driver: each blob is a file at `<DATA_DIR>/<key>`, so `files/<owner>/<name>`
 * and `knowledge/<knowledge base>/<document>` are exactly where earlier versions put them and an
 * existing installation's files keep working. Writes stream into a temporary `.upload-*.part`
 * file in the same folder and are renamed into place once complete and synced, so a crash never
 * leaves a half-written file under a real key. Reads refuse anything that is not a plain file
 * exactly where it should be: symlinks planted in the data folder, FIFOs and devices are not
 * followed. The default for one process on SQLite; several processes on several machines need
 * the postgres or s3 driver.
 */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import {
  checkBlobKey,
  checkBlobPrefix,
  checkByteRange,
  HashingCounter,
  type BlobInfo,
  type BlobStorage,
  type ByteRange,
  type WrittenBlob,
} from './blob-storage.js';

const TEMPORARY_PREFIX = '.upload-';
/** What `write` names a file while it streams in; only such names are ever removed as unfinished. */
const TEMPORARY_NAME_PATTERN = /^\.upload-[0-9a-f]{32}\.part$/;
/** Errors that mean "this file cannot be read by us", as opposed to a failing disk. */
const NOT_READABLE_CODES = new Set(['ENOENT', 'ENOTDIR', 'ELOOP', 'EACCES', 'EPERM', 'ENXIO']);

function errorCode(error: unknown): string {
  return String((error as { code?: unknown } | null)?.code);
}

async function removeQuietly(filePath: string): Promise<void> {
  await fs.rm(filePath, { force: true }).catch(() => undefined);
}

/** Makes a rename durable: the folder entry must reach the disk too, not only the file's bytes. */
async function syncFolderNow(folder: string): Promise<void> {
  const handle = await fs.open(folder, fsConstants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * The folder syncs of one folder, shared: a sync covers every rename done before it started, so
 * the renames that arrive while one runs wait for the next, and all of them share it. A batch of
 * documents written at once (a JSON request's texts) then costs a few folder syncs, not one each,
 * and every write still returns only once a sync that began after its rename has ended.
 */
class FolderSyncs {
  /** Per folder: the sync waiting to start, if any, and the last one queued. */
  private readonly folders = new Map<string, { waiting: Promise<void> | undefined; last: Promise<void> }>();

  sync(folder: string): Promise<void> {
    let state = this.folders.get(folder);
    if (state === undefined) {
      state = { waiting: undefined, last: Promise.resolve() };
      this.folders.set(folder, state);
    }
    // Not started yet: it will cover this rename too.
    if (state.waiting !== undefined) return state.waiting;
    const own = state;
    const next = own.last
      .catch(() => undefined)
      .then(() => {
        // Started: a rename from now on needs the sync after this one.
        own.waiting = undefined;
        return syncFolderNow(folder);
      });
    own.waiting = next;
    own.last = next;
    void next
      .catch(() => undefined)
      .finally(() => {
        if (own.last === next && this.folders.get(folder) === own) this.folders.delete(folder);
      });
    return next;
  }
}

export class LocalBlobStorage implements BlobStorage {
  readonly driver = 'local';
  /** The data folder: nothing is ever read or written outside it. */
  readonly root: string;
  private realRoot: Promise<string> | undefined;
  private readonly folderSyncs = new FolderSyncs();
  /** Per folder below the root, the check of it now running (folderFor). */
  private readonly folderChecks = new Map<string, Promise<string>>();

  constructor(dataDirectory: string) {
    this.root = path.resolve(dataDirectory);
  }

  /**
   * Creates the key's folder if needed and returns its real path, refusing (as a server fault) a
   * folder that is not a plain folder exactly where it should be, such as a planted symlink.
   */
  private folderFor(key: string): Promise<string> {
    const relative = path.dirname(key);
    // The writes of one batch (a JSON request's texts) arrive together: they share the check in
    // progress for their folder rather than each making and resolving the folder again.
    const inProgress = this.folderChecks.get(relative);
    if (inProgress !== undefined) return inProgress;
    const check = this.checkFolder(relative).finally(() => this.folderChecks.delete(relative));
    this.folderChecks.set(relative, check);
    return check;
  }

  private async checkFolder(relative: string): Promise<string> {
    await fs.mkdir(path.join(this.root, relative), { recursive: true, mode: 0o700 });
    const expected = path.join(await this.realRootPath(), relative);
    if ((await fs.realpath(path.join(this.root, relative))) !== expected)
      throw new Error(`The storage folder ${relative} is not a plain folder inside the data folder.`);
    return expected;
  }

  /**
   * The data folder's real path. The data folder itself is the operator's to place (it may well be
   * a link); only what lies inside it is checked on every call, so its real path is looked up once.
   */
  private realRootPath(): Promise<string> {
    this.realRoot ??= fs.realpath(this.root).catch((error: unknown) => {
      this.realRoot = undefined;
      throw error;
    });
    return this.realRoot;
  }

  async write(key: string, bytes: AsyncIterable<Uint8Array>): Promise<WrittenBlob> {
    checkBlobKey(key);
    const folder = await this.folderFor(key);
    const temporaryPath = path.join(folder, `${TEMPORARY_PREFIX}${randomBytes(16).toString('hex')}.part`);
    // O_EXCL and O_NOFOLLOW: never write through something already there, least of all a symlink.
    const handle = await fs.open(
      temporaryPath,
      fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW,
      0o600,
    );
    try {
      const counter = new HashingCounter();
      for await (const chunk of counter.pass(bytes)) await handle.write(chunk);
      await handle.sync();
      await handle.close();
      await fs.rename(temporaryPath, path.join(folder, path.basename(key)));
      await this.folderSyncs.sync(folder);
      return counter.result();
    } catch (error) {
      await handle.close().catch(() => undefined);
      await removeQuietly(temporaryPath);
      throw error;
    }
  }

  async read(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined> {
    checkBlobKey(key);
    checkByteRange(range);
    const handle = await this.openPlainFile(key);
    if (handle === undefined) return undefined;
    // The stream closes the handle when it ends, fails or is destroyed.
    return handle.createReadStream({ start: range?.start ?? 0, ...(range?.end !== undefined && { end: range.end }) });
  }

  /** The whole file in one read, for a document the ingestion runner hands to a worker: no stream to set up. */
  async readWhole(key: string): Promise<Buffer | undefined> {
    checkBlobKey(key);
    const handle = await this.openPlainFile(key);
    if (handle === undefined) return undefined;
    try {
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    checkBlobKey(key);
    const handle = await this.openPlainFile(key);
    if (handle === undefined) return undefined;
    try {
      const status = await handle.stat();
      return { key, sizeBytes: status.size, modifiedAt: status.mtimeMs };
    } finally {
      await handle.close();
    }
  }

  async delete(key: string): Promise<void> {
    checkBlobKey(key);
    try {
      await fs.unlink(path.join(this.root, key));
    } catch (error) {
      if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'ENOTDIR') throw error;
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    if (checkBlobPrefix(prefix) === '') throw new RangeError('The whole data folder is never removed.');
    await fs.rm(path.join(this.root, prefix), { recursive: true, force: true, maxRetries: 3 });
  }

  async move(from: string, to: string): Promise<void> {
    checkBlobKey(from);
    checkBlobKey(to);
    const target = await this.folderFor(to);
    // A rename within one folder (a staged upload named by its id) checks that folder once.
    const source = path.dirname(from) === path.dirname(to) ? target : await this.folderFor(from);
    await fs.rename(path.join(source, path.basename(from)), path.join(target, path.basename(to)));
    await this.folderSyncs.sync(target);
  }

  async *list(prefix: string): AsyncGenerator<BlobInfo> {
    checkBlobPrefix(prefix);
    for await (const entry of this.walk(prefix.replace(/\/$/, ''))) {
      if (TEMPORARY_NAME_PATTERN.test(path.basename(entry.key))) continue;
      yield entry;
    }
  }

  async sweepUnfinished(graceMilliseconds: number): Promise<number> {
    const cutoff = Date.now() - graceMilliseconds;
    let removed = 0;
    for (const area of ['files', 'knowledge']) {
      for await (const entry of this.walk(area, true)) {
        if (!TEMPORARY_NAME_PATTERN.test(path.basename(entry.key)) || entry.modifiedAt >= cutoff) continue;
        await removeQuietly(path.join(this.root, entry.key));
        removed += 1;
      }
    }
    return removed;
  }

  async close(): Promise<void> {}

  /** Plain files below `relative` (symlinks and anything else skipped); with `withTemporary`, upload temporaries too. */
  private async *walk(relative: string, withTemporary = false): AsyncGenerator<BlobInfo> {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(path.join(this.root, relative), { withFileTypes: true });
    } catch (error) {
      if (NOT_READABLE_CODES.has(errorCode(error))) return;
      throw error;
    }
    for (const entry of entries) {
      const key = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory() && !entry.name.startsWith('.')) yield* this.walk(key, withTemporary);
      if (!entry.isFile()) continue;
      const temporary = TEMPORARY_NAME_PATTERN.test(entry.name);
      if (!temporary && !/^[a-z0-9][a-z0-9._-]*$/.test(entry.name)) continue;
      if (temporary && !withTemporary) continue;
      const status = await fs.lstat(path.join(this.root, key)).catch(() => undefined);
      if (status?.isFile()) yield { key, sizeBytes: status.size, modifiedAt: status.mtimeMs };
    }
  }

  /**
   * Opens a blob's file only when its real path is exactly `<real root>/<key>` (so no symlink
   * anywhere below the root), without following a symlink at the last step (O_NOFOLLOW), without
   * blocking on a FIFO (O_NONBLOCK), and only when what was opened is the regular file checked.
   */
  private async openPlainFile(key: string): Promise<FileHandle | undefined> {
    try {
      const expected = path.join(await this.realRootPath(), key);
      if ((await fs.realpath(path.join(this.root, key))) !== expected) return undefined;
      const checked = await fs.lstat(expected);
      if (!checked.isFile()) return undefined;
      const handle = await fs.open(expected, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
      const opened = await handle.stat();
      if (opened.isFile() && opened.dev === checked.dev && opened.ino === checked.ino) return handle;
      await handle.close();
      return undefined;
    } catch (error) {
      if (NOT_READABLE_CODES.has(errorCode(error))) return undefined;
      throw error;
    }
  }
}
