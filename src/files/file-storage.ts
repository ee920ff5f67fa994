/**
 * The bytes of uploaded files on disk, under `<DATA_DIR>/files/<owner id>/<stored name>` (and,
 * for knowledge-base documents, `<DATA_DIR>/knowledge/<knowledge base id>/<document id>`).
 * Stored names are random and chosen here, never taken from user text, so case-insensitive or
 * normalising file systems cannot make two names collide. Writes go to a temporary file in the
 * same folder and are renamed into place once complete and synced, so a crash never leaves a
 * half-written file under a real name. Reads refuse anything that is not a plain file exactly
 * where it should be: symlinks planted in the data folder, FIFOs and devices are not followed.
 * A process killed mid-upload leaves its temporary file behind; `listLeftoverCandidates` shows a
 * folder's plain files with their age, so that start-up can remove what no upload can still want.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../errors/app-error.js';
import type { FileText } from '../pipeline/ports.js';

/** Stored names look like this and nothing else; a row holding anything other than this was not written by us. */
const STORED_NAME_PATTERN = /^[0-9a-f]{32}\.[a-z0-9]{1,16}$/;
const TEMPORARY_PREFIX = '.upload-';
/** What `store` names a file while it streams in; only such names are ever removed as temporary. */
const TEMPORARY_NAME_PATTERN = /^\.upload-[0-9a-f]{32}\.part$/;
/** Folders under the root are named by their owner's id. */
const OWNER_FOLDER_PATTERN = /^[1-9][0-9]{0,9}$/;
const READ_CHUNK_BYTES = 64 * 1024;
/** Errors that mean "this file cannot be read by us", as opposed to a failing disk. */
const NOT_READABLE_CODES = new Set(['ENOENT', 'ENOTDIR', 'ELOOP', 'EACCES', 'EPERM', 'ENXIO']);

export interface StoredBytes {
  storedName: string;
  sizeBytes: number;
  sha256: string;
}

/** What looks at each chunk of an upload as it streams in, and may refuse it. */
export interface UploadInspector {
  inspect(chunk: Uint8Array): void;
  finish(): void;
}

export interface FileStorageOptions {
  /** The folder under the data folder: `files` unless given. */
  folder?: string;
  /** The names a stored file may have; anything else is never read or removed. */
  storedNamePattern?: RegExp;
}

/** A plain file in an owner's folder, as start-up sees it when looking for what a crash left. */
export interface FolderEntry {
  name: string;
  /** `temporary`: an upload still streaming in, or one whose process died; `stored`: a name this storage gives files. */
  kind: 'temporary' | 'stored';
  /** Last written, in milliseconds since the epoch; a live upload keeps moving it forward. */
  modifiedAt: number;
}

export interface UploadLimits {
  bytesMaximum: number;
  extension: string;
}

function errorCode(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

async function removeQuietly(filePath: string): Promise<void> {
  await fs.rm(filePath, { force: true }).catch(() => undefined);
}

/** Makes a rename durable: the folder entry must reach the disk too, not only the file's bytes. */
async function syncFolder(folder: string): Promise<void> {
  const handle = await fs.open(folder, fsConstants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The 413 an upload over the limit gets, whether its declared length or its counted bytes gave it away. */
export function fileTooLarge(bytesMaximum: number): AppError {
  return new AppError('file_too_large', `The file is larger than the limit of ${bytesMaximum} bytes.`, {
    param: 'file',
    details: { max_bytes: bytesMaximum },
  });
}

/** Cuts decoded text to `maxCharacters` UTF-16 code units, one fewer when the cut would split a surrogate pair. */
function cutText(text: string, charactersMaximum: number): string {
  const lastKept = text.charCodeAt(charactersMaximum - 1);
  const splitsPair = charactersMaximum > 0 && lastKept >= 0xd800 && lastKept <= 0xdbff;
  return text.slice(0, splitsPair ? charactersMaximum - 1 : charactersMaximum);
}

export class FileStorage {
  /** `<DATA_DIR>/files`: nothing is ever read or written outside it. */
  readonly root: string;
  private readonly storedNamePattern: RegExp;

  constructor(dataDirectory: string, options: FileStorageOptions = {}) {
    this.root = path.join(path.resolve(dataDirectory), options.folder ?? 'files');
    this.storedNamePattern = options.storedNamePattern ?? STORED_NAME_PATTERN;
  }

  /**
   * Creates the owner's folder if needed and returns its real path, refusing (as a server fault)
   * a folder that is not a plain folder directly inside the root, such as a planted symlink.
   */
  private async ownerFolder(ownerId: number): Promise<string> {
    const folder = path.join(this.root, String(ownerId));
    await fs.mkdir(folder, { recursive: true, mode: 0o700 });
    const expected = path.join(await fs.realpath(this.root), String(ownerId));
    if ((await fs.realpath(folder)) !== expected)
      throw new Error(`The files folder of user ${ownerId} is not a plain folder inside the data folder.`);
    return expected;
  }

  /**
   * Streams an upload to disk: counts its bytes against the limit, hands each chunk to the
   * inspector, hashes it, and renames the complete, synced file into place. On any failure the
   * temporary file is removed and the error is passed on.
   */
  async store(ownerId: number, bytes: AsyncIterable<Uint8Array>, limits: UploadLimits, inspector?: UploadInspector): Promise<StoredBytes> {
    const folder = await this.ownerFolder(ownerId);
    const temporaryPath = path.join(folder, `${TEMPORARY_PREFIX}${randomBytes(16).toString('hex')}.part`);
    // O_EXCL and O_NOFOLLOW: never write through something already there, least of all a symlink.
    const handle = await fs.open(
      temporaryPath,
      fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW,
      0o600,
    );
    try {
      const written = await this.writeAll(handle, bytes, limits.bytesMaximum, inspector);
      await handle.sync();
      await handle.close();
      const storedName = `${randomBytes(16).toString('hex')}.${limits.extension}`;
      await fs.rename(temporaryPath, path.join(folder, storedName));
      await syncFolder(folder);
      return { storedName, ...written };
    } catch (error) {
      await handle.close().catch(() => undefined);
      await removeQuietly(temporaryPath);
      throw error;
    }
  }

  private async writeAll(
    handle: FileHandle,
    bytes: AsyncIterable<Uint8Array>,
    bytesMaximum: number,
    inspector: UploadInspector | undefined,
  ): Promise<Omit<StoredBytes, 'storedName'>> {
    const hash = createHash('sha256');
    let sizeBytes = 0;
    for await (const chunk of bytes) {
      sizeBytes += chunk.length;
      if (sizeBytes > bytesMaximum) throw fileTooLarge(bytesMaximum);
      inspector?.inspect(chunk);
      hash.update(chunk);
      await handle.write(chunk);
    }
    inspector?.finish();
    return { sizeBytes, sha256: hash.digest('hex') };
  }

  /** Removes a stored file; one already gone is fine, since removing is what was wanted. */
  async remove(ownerId: number, storedName: string): Promise<void> {
    if (!this.storedNamePattern.test(storedName)) return;
    try {
      await fs.unlink(path.join(this.root, String(ownerId), storedName));
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
    }
  }

  /** Gives a stored file another name in the same folder (durably), replacing whatever held that name. */
  async rename(ownerId: number, storedName: string, newName: string): Promise<void> {
    if (!this.storedNamePattern.test(storedName) || !this.storedNamePattern.test(newName)) throw new Error('Not a stored file name.');
    const folder = await this.ownerFolder(ownerId);
    await fs.rename(path.join(folder, storedName), path.join(folder, newName));
    await syncFolder(folder);
  }

  /** Every byte of a stored file, or undefined when it is missing or not a plain file exactly where it should be. */
  async readAll(ownerId: number, storedName: string): Promise<Buffer | undefined> {
    const handle = await this.openPlainFile(ownerId, storedName);
    if (handle === undefined) return undefined;
    try {
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  /** The ids of the owners that have a folder here. */
  async listOwners(): Promise<number[]> {
    let names: string[];
    try {
      names = await fs.readdir(this.root);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return [];
      throw error;
    }
    return names.filter((name) => OWNER_FOLDER_PATTERN.test(name)).map(Number);
  }

  /**
   * The owner's plain files that are temporary or carry a stored name, with when each was last
   * written. Symlinks, folders and anything named otherwise are left out: they were not written
   * here, and nothing removes them.
   */
  async listLeftoverCandidates(ownerId: number): Promise<FolderEntry[]> {
    const folder = path.join(this.root, String(ownerId));
    let names: string[];
    try {
      names = await fs.readdir(folder);
    } catch (error) {
      if (NOT_READABLE_CODES.has(String(errorCode(error)))) return [];
      throw error;
    }
    const entries: FolderEntry[] = [];
    for (const name of names) {
      const kind = TEMPORARY_NAME_PATTERN.test(name) ? 'temporary' : this.storedNamePattern.test(name) ? 'stored' : undefined;
      if (kind === undefined) continue;
      const status = await fs.lstat(path.join(folder, name)).catch(() => undefined);
      if (status?.isFile()) entries.push({ name, kind, modifiedAt: status.mtimeMs });
    }
    return entries;
  }

  /** Removes a temporary upload file; one already gone is fine. */
  async removeTemporary(ownerId: number, name: string): Promise<void> {
    if (!TEMPORARY_NAME_PATTERN.test(name)) return;
    await removeQuietly(path.join(this.root, String(ownerId), name));
  }

  /** Removes an owner's whole folder; one already gone is fine, one written into meanwhile is tried again. */
  async removeOwner(ownerId: number): Promise<void> {
    await fs.rm(path.join(this.root, String(ownerId)), { recursive: true, force: true, maxRetries: 3 });
  }

  /**
   * Reads at most `maxCharacters` characters (UTF-16 code units) of a stored file, reading only
   * as many bytes as that needs. Undefined when the file is missing or is not a plain file
   * exactly where it should be.
   */
  async readTextPrefix(ownerId: number, storedName: string, charactersMaximum: number): Promise<FileText | undefined> {
    const handle = await this.openPlainFile(ownerId, storedName);
    if (handle === undefined) return undefined;
    try {
      return await this.readPrefix(handle, charactersMaximum);
    } finally {
      await handle.close();
    }
  }

  /**
   * Opens a stored file only when its real path is exactly `<real root>/<owner id>/<stored name>`
   * (so no symlink anywhere below the root), without following a symlink at the last step
   * (O_NOFOLLOW), without blocking on a FIFO (O_NONBLOCK), and only when what was opened is the
   * regular file that was checked.
   */
  private async openPlainFile(ownerId: number, storedName: string): Promise<FileHandle | undefined> {
    if (!this.storedNamePattern.test(storedName)) return undefined;
    try {
      const expected = path.join(await fs.realpath(this.root), String(ownerId), storedName);
      if ((await fs.realpath(path.join(this.root, String(ownerId), storedName))) !== expected) return undefined;
      const checked = await fs.lstat(expected);
      if (!checked.isFile()) return undefined;
      const handle = await fs.open(expected, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
      const opened = await handle.stat();
      if (opened.isFile() && opened.dev === checked.dev && opened.ino === checked.ino) return handle;
      await handle.close();
      return undefined;
    } catch (error) {
      if (NOT_READABLE_CODES.has(String(errorCode(error)))) return undefined;
      throw error;
    }
  }

  private async readPrefix(handle: FileHandle, charactersMaximum: number): Promise<FileText> {
    // Not fatal: the bytes were checked at upload; should a file change on disk since, its bad bytes read as U+FFFD rather than failing the tool.
    const decoder = new TextDecoder('utf-8');
    const buffer = Buffer.alloc(READ_CHUNK_BYTES);
    let text = '';
    let position = 0;
    let ended = false;
    // Reading stops one character beyond the budget, which tells whether anything was left out.
    while (text.length <= charactersMaximum && !ended) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
      position += bytesRead;
      ended = bytesRead === 0;
      text += ended ? decoder.decode() : decoder.decode(buffer.subarray(0, bytesRead), { stream: true });
    }
    if (text.length <= charactersMaximum) return { text, truncated: false };
    return { text: cutText(text, charactersMaximum), truncated: true };
  }
}
