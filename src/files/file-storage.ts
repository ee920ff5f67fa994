/**
 * The bytes of uploaded files, as one area of blob storage: `files/<owner id>/<stored name>`
 * (and, for knowledge-base documents, `knowledge/<knowledge base id>/<document id>`). Stored names
 * are random and chosen here, never taken from user text, so case-insensitive or normalising file
 * systems cannot make two names collide. An upload streams through a size limit and a content
 * inspector into the blob storage, which never shows a half-written blob under a real key; which
 * driver holds the bytes (local disk, the database, S3) is the blob storage's business
 * (docs/blob-storage.md). Reads refuse any stored name this storage could not have given.
 */
import { randomBytes } from 'node:crypto';
import type { FileText } from '../pipeline/plugin-contract/ports.js';
import { AppError } from '../errors/app-error.js';
import { readWhole, type BlobStorage, type ByteRange } from '../blobs/blob-storage.js';

/** Stored names look like this and nothing else; a row holding anything other than this was not written by us. */
const STORED_NAME_PATTERN = /^[0-9a-f]{32}\.[a-z0-9]{1,16}$/;
/** Folders under the root are named by their owner's id. */
const OWNER_FOLDER_PATTERN = /^[1-9][0-9]{0,9}$/;

export interface StoredBytes {
  storedName: string;
  sizeBytes: number;
  sha256: string;
  /** The bytes themselves, when the upload was no larger than `UploadLimits.keptBytesMaximum`. */
  bytes?: Buffer;
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

/** A stored file in an owner's folder, as start-up sees it when looking for what a crash left. */
export interface FolderEntry {
  name: string;
  /** Written, in milliseconds since the epoch. */
  modifiedAt: number;
}

export interface UploadLimits {
  bytesMaximum: number;
  extension: string;
  /** An upload of at most this many bytes is also kept in memory and answered with its storing, so it need not be read back. */
  keptBytesMaximum?: number;
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
  /** `files` unless given: every key this storage uses starts with it. */
  readonly folder: string;
  private readonly storedNamePattern: RegExp;

  constructor(
    private readonly blobs: BlobStorage,
    options: FileStorageOptions = {},
  ) {
    this.folder = options.folder ?? 'files';
    this.storedNamePattern = options.storedNamePattern ?? STORED_NAME_PATTERN;
  }

  private key(ownerId: number, storedName: string): string {
    return `${this.folder}/${ownerId}/${storedName}`;
  }

  /**
   * Streams an upload into blob storage: counts its bytes against the limit and hands each chunk
   * to the inspector on the way; the storage hashes it and puts it under its stored name only
   * once complete. On any failure nothing is left under that name and the error is passed on.
   */
  async store(ownerId: number, bytes: AsyncIterable<Uint8Array>, limits: UploadLimits, inspector?: UploadInspector): Promise<StoredBytes> {
    const storedName = `${randomHex()}.${limits.extension}`;
    const kept = new KeptBytes(limits.keptBytesMaximum ?? 0);
    const written = await this.blobs.write(this.key(ownerId, storedName), checked(bytes, limits.bytesMaximum, inspector, kept));
    const keptBytes = kept.bytes();
    return { storedName, ...written, ...(keptBytes !== undefined && { bytes: keptBytes }) };
  }

  /**
   * Writes bytes straight under a name this storage gives (a knowledge-base document's id), through
   * the size limit, replacing whatever held the name; as with `store`, nothing half-written is ever
   * seen under it. For bytes already in hand whose record exists, so no staged name is needed.
   */
  async storeUnder(ownerId: number, storedName: string, bytes: AsyncIterable<Uint8Array>, bytesMaximum: number): Promise<StoredBytes> {
    if (!this.storedNamePattern.test(storedName)) throw new Error('Not a stored file name.');
    const written = await this.blobs.write(this.key(ownerId, storedName), checked(bytes, bytesMaximum, undefined));
    return { storedName, ...written };
  }

  /** Removes a stored file; one already gone is fine, since removing is what was wanted. */
  async remove(ownerId: number, storedName: string): Promise<void> {
    if (!this.storedNamePattern.test(storedName)) return;
    await this.blobs.delete(this.key(ownerId, storedName));
  }

  /** Gives a stored file another name in the same folder, replacing whatever held that name. */
  async rename(ownerId: number, storedName: string, newName: string): Promise<void> {
    if (!this.storedNamePattern.test(storedName) || !this.storedNamePattern.test(newName)) throw new Error('Not a stored file name.');
    await this.blobs.move(this.key(ownerId, storedName), this.key(ownerId, newName));
  }

  /** A stored file's bytes (or a range of them) as a stream, or undefined when it is missing or not one of ours. */
  async open(ownerId: number, storedName: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined> {
    if (!this.storedNamePattern.test(storedName)) return undefined;
    return this.blobs.read(this.key(ownerId, storedName), range);
  }

  /** Every byte of a stored file, or undefined when it is missing or not one of ours. */
  async readAll(ownerId: number, storedName: string): Promise<Buffer | undefined> {
    if (this.blobs.readWhole !== undefined) {
      return this.storedNamePattern.test(storedName) ? await this.blobs.readWhole(this.key(ownerId, storedName)) : undefined;
    }
    const stream = await this.open(ownerId, storedName);
    return stream === undefined ? undefined : readWhole(stream);
  }

  /** The ids of the owners that have stored files here. */
  async listOwners(): Promise<number[]> {
    const owners = new Set<number>();
    for await (const blob of this.blobs.list(`${this.folder}/`)) {
      const owner = blob.key.split('/')[1] ?? '';
      if (OWNER_FOLDER_PATTERN.test(owner)) owners.add(Number(owner));
    }
    return [...owners];
  }

  /** The owner's files that carry a stored name, with when each was written; anything named otherwise is left out. */
  async listStored(ownerId: number): Promise<FolderEntry[]> {
    const entries: FolderEntry[] = [];
    for await (const blob of this.blobs.list(`${this.folder}/${ownerId}/`)) {
      const name = blob.key.slice(`${this.folder}/${ownerId}/`.length);
      if (this.storedNamePattern.test(name)) entries.push({ name, modifiedAt: blob.modifiedAt });
    }
    return entries;
  }

  /** Removes an owner's whole folder; one already gone is fine. */
  async removeOwner(ownerId: number): Promise<void> {
    await this.blobs.deletePrefix(`${this.folder}/${ownerId}/`);
  }

  /**
   * Reads at most `maxCharacters` characters (UTF-16 code units) of a stored file, reading only
   * as many bytes as that needs. Undefined when the file is missing or not one of ours.
   */
  async readTextPrefix(ownerId: number, storedName: string, charactersMaximum: number): Promise<FileText | undefined> {
    const stream = await this.open(ownerId, storedName);
    if (stream === undefined) return undefined;
    return readPrefix(stream, charactersMaximum);
  }
}

function randomHex(): string {
  return randomBytes(16).toString('hex');
}

/** The chunks of an upload while it stays within a size, so a small upload's bytes are in hand once stored. */
class KeptBytes {
  private chunks: Uint8Array[] | undefined = [];
  private sizeBytes = 0;

  constructor(private readonly bytesMaximum: number) {}

  add(chunk: Uint8Array): void {
    this.sizeBytes += chunk.length;
    if (this.sizeBytes > this.bytesMaximum) this.chunks = undefined;
    else this.chunks?.push(chunk);
  }

  bytes(): Buffer | undefined {
    return this.chunks === undefined ? undefined : Buffer.concat(this.chunks);
  }
}

/** Passes an upload's chunks on, refusing it once it passes `bytesMaximum` and letting the inspector refuse it too. */
async function* checked(
  bytes: AsyncIterable<Uint8Array>,
  bytesMaximum: number,
  inspector: UploadInspector | undefined,
  kept?: KeptBytes,
): AsyncGenerator<Uint8Array> {
  let sizeBytes = 0;
  for await (const chunk of bytes) {
    sizeBytes += chunk.length;
    if (sizeBytes > bytesMaximum) throw fileTooLarge(bytesMaximum);
    inspector?.inspect(chunk);
    kept?.add(chunk);
    yield chunk;
  }
  inspector?.finish();
}

async function readPrefix(stream: AsyncIterable<Uint8Array>, charactersMaximum: number): Promise<FileText> {
  // Not fatal: the bytes were checked at upload; should a file change in storage since, its bad bytes read as U+FFFD rather than failing the tool.
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let ended = true;
  // Reading stops one character beyond the budget, which tells whether anything was left out.
  for await (const chunk of stream) {
    text += decoder.decode(chunk, { stream: true });
    if (text.length > charactersMaximum) {
      ended = false;
      break;
    }
  }
  if (ended) text += decoder.decode();
  if (text.length <= charactersMaximum) return { text, truncated: false };
  return { text: cutText(text, charactersMaximum), truncated: true };
}
