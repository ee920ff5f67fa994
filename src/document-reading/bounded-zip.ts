/**
 * Reading parts of a ZIP archive (a Word document) without trusting anything the archive says
 * about itself. A part is inflated as a stream while its bytes are counted, and reading stops
 * the moment one part, or all of them together, passes its limit: a 1 MB file that claims small
 * sizes but inflates to gigabytes is refused after the limit, never held in memory. yauzl also
 * checks each part's real size against the size declared for it, so an archive lying about its
 * sizes is refused as damaged. The parts that passed are written into a fresh, uncompressed
 * archive, so the library that parses them afterwards (mammoth) sees exactly the bytes that were
 * measured and nothing else. Listing an archive's entries, to tell a Word document from other
 * ZIP files, goes through yauzl too, reading only the central directory.
 */
import { crc32 } from 'node:zlib';
import { createRequire } from 'node:module';
import type yauzl from 'yauzl';
import { DocumentReadingError } from './document-reading-error.js';

// Named `require` so that tools that trace dependencies (knip) see the module it loads.
const require = createRequire(import.meta.url);
/** yauzl (about 40 ms of CPU to load) only once an archive is opened, not in every worker thread that starts. */
const zipReader = (): typeof yauzl => require('yauzl') as typeof yauzl;

export interface ZipPartLimits {
  /** Most bytes one part may inflate to. */
  maximumPartBytes: number;
  /** Most bytes all the parts read may inflate to together. */
  maximumTotalBytes: number;
  /** Most entries the archive may list; a Word document has a few dozen. */
  maximumEntries: number;
}

export interface ZipPart {
  name: string;
  bytes: Buffer;
}

export interface ZipEntry {
  /** The entry's path inside the archive, as stored (`word/document.xml`). */
  name: string;
  /** Size once inflated, as the central directory declares it. */
  uncompressedSize: number;
}

/**
 * More entries than any Word document has (a few dozen). The directory is read while an upload
 * is answered, so its length is what bounds that work.
 */
export const ZIP_DIRECTORY_ENTRIES_MAXIMUM = 10_000;

/** True when the bytes start with a ZIP local file header or an empty archive's end record. */
export function looksLikeZip(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 4 &&
    bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    ((bytes[2] === 0x03 && bytes[3] === 0x04) || (bytes[2] === 0x05 && bytes[3] === 0x06))
  );
}

function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * The archive's entries as its central directory lists them, nothing inflated; undefined when
 * yauzl finds no readable directory (a truncated or damaged archive) or it lists more than
 * ZIP_DIRECTORY_ENTRIES_MAXIMUM. Names are read as UTF-8 and not judged here: whether a name is
 * safe to use is the reader's concern, not the listing's.
 */
export async function readZipDirectory(bytes: Uint8Array): Promise<ZipEntry[] | undefined> {
  let zipFile: yauzl.ZipFile;
  try {
    // Sizes are not checked here: whether the parts are what they claim is for readZipParts to find out when it reads them.
    zipFile = await zipReader().fromBufferPromise(bufferOf(bytes), { lazyEntries: true, decodeStrings: false, validateEntrySizes: false });
  } catch {
    return undefined;
  }
  try {
    if (zipFile.entryCount > ZIP_DIRECTORY_ENTRIES_MAXIMUM) return undefined;
    const decoder = new TextDecoder('utf-8');
    const entries: ZipEntry[] = [];
    for await (const entry of zipFile.eachEntry()) {
      entries.push({ name: decoder.decode(entry.fileNameRaw), uncompressedSize: entry.uncompressedSize });
    }
    return entries;
  } catch {
    return undefined;
  } finally {
    zipFile.close();
  }
}

/** Part names quoted in messages: OOXML names, nothing a person wrote. */
const QUOTABLE_PART_NAME = /^[A-Za-z0-9_.\-/[\]]{1,120}$/;

/** "The Word document's part "word/styles.xml"", or a neutral phrase for a name that is not a plain part name. */
function partLabel(name: string): string {
  return QUOTABLE_PART_NAME.test(name) ? `The Word document's part "${name}"` : 'A part of the Word document';
}

function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

function damaged(cause: unknown): DocumentReadingError {
  return new DocumentReadingError(
    'unreadable_document',
    'The Word document could not be read: the ZIP archive it is made of is damaged, or the sizes it declares for its parts do not match their content. Open it in Word or LibreOffice, save it again as .docx and upload the new file.',
    { param: 'file', details: { reason: 'damaged' }, cause },
  );
}

function partTooLarge(name: string, limit: number): DocumentReadingError {
  return new DocumentReadingError(
    'document_too_large',
    `${partLabel(name)} unpacks to more than ${formatCount(limit)} bytes, the most read from one part. Split the document or remove what makes that part so large.`,
    {
      param: 'file',
      details: { reason: 'part_too_large', limit },
    },
  );
}

function archiveTooLarge(limit: number): DocumentReadingError {
  return new DocumentReadingError(
    'document_too_large',
    `The parts of the Word document unpack to more than ${formatCount(limit)} bytes together, the most read from one document. Split it into smaller documents.`,
    {
      param: 'file',
      details: { reason: 'archive_too_large', limit },
    },
  );
}

/** Inflates one entry, counting bytes as they come and stopping at whichever limit comes first. */
async function readBounded(zipFile: yauzl.ZipFile, entry: yauzl.Entry, budget: { total: number }, limits: ZipPartLimits): Promise<Buffer> {
  const stream = await zipFile.openReadStreamPromise(entry);
  const pieces: Buffer[] = [];
  let length = 0;
  try {
    for await (const piece of stream as AsyncIterable<Buffer>) {
      length += piece.length;
      budget.total += piece.length;
      if (length > limits.maximumPartBytes) throw partTooLarge(entry.fileName, limits.maximumPartBytes);
      if (budget.total > limits.maximumTotalBytes) throw archiveTooLarge(limits.maximumTotalBytes);
      pieces.push(piece);
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(pieces, length);
}

/**
 * The parts `wanted` selects, inflated under the limits; parts not selected (images, embedded
 * files, nested archives) are never inflated at all. Throws `document_too_large` past a limit and
 * `unreadable_document` for a damaged, encrypted or lying archive.
 */
export async function readZipParts(bytes: Uint8Array, wanted: (name: string) => boolean, limits: ZipPartLimits): Promise<ZipPart[]> {
  let zipFile: yauzl.ZipFile;
  try {
    zipFile = await zipReader().fromBufferPromise(bufferOf(bytes), {
      lazyEntries: true,
      validateEntrySizes: true,
      strictFileNames: false,
    });
  } catch (error) {
    throw damaged(error);
  }
  try {
    if (zipFile.entryCount > limits.maximumEntries) {
      throw new DocumentReadingError(
        'document_too_large',
        `The Word document is an archive of ${formatCount(zipFile.entryCount)} parts; at most ${formatCount(limits.maximumEntries)} are read.`,
        {
          param: 'file',
          details: { reason: 'too_many_parts', limit: limits.maximumEntries },
        },
      );
    }
    const parts: ZipPart[] = [];
    const budget = { total: 0 };
    const seen = new Set<string>();
    for await (const entry of zipFile.eachEntry()) {
      if (entry.fileName.endsWith('/') || !wanted(entry.fileName)) continue;
      // Two entries of one name would let the parser pick another one than the one measured.
      const key = entry.fileName.toLowerCase();
      if (seen.has(key)) throw damaged(new Error('duplicate entry name'));
      seen.add(key);
      if (entry.isEncrypted()) throw damaged(new Error('encrypted entry'));
      // The declared size is a hint only: checked here to refuse early, and again on the real bytes below.
      if (entry.uncompressedSize > limits.maximumPartBytes) throw partTooLarge(entry.fileName, limits.maximumPartBytes);
      parts.push({ name: entry.fileName, bytes: await readBounded(zipFile, entry, budget, limits) });
    }
    return parts;
  } catch (error) {
    if (error instanceof DocumentReadingError) throw error;
    throw damaged(error);
  } finally {
    zipFile.close();
  }
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
/** Names are UTF-8 (general-purpose flag bit 11). */
const UTF8_NAMES = 0x0800;
/** 1980-01-01, the earliest date a ZIP can hold; the parts' dates do not matter here. */
const DOS_DATE = 0x21;

/** An uncompressed ZIP archive of `parts` (each below 4 GiB, fewer than 65,535 of them). */
export function writeStoredZip(parts: readonly ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name, 'utf8');
    const checksum = crc32(part.bytes);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL_HEADER, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(UTF8_NAMES, 6);
    local.writeUInt16LE(0, 8);
    local.writeUInt16LE(0, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(checksum, 14);
    local.writeUInt32LE(part.bytes.length, 18);
    local.writeUInt32LE(part.bytes.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(CENTRAL_HEADER, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(UTF8_NAMES, 8);
    central.writeUInt16LE(0, 10);
    central.writeUInt16LE(0, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(checksum, 16);
    central.writeUInt32LE(part.bytes.length, 20);
    central.writeUInt32LE(part.bytes.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, part.bytes);
    centrals.push(central, name);
    offset += local.length + name.length + part.bytes.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
