/**
 * The list of entries of a ZIP archive, read from its central directory without inflating
 * anything. Enough to tell a Word document (a ZIP holding `word/document.xml`) from other ZIP
 * files, and to learn how large a part will be once inflated before any library inflates it.
 */

export interface ZipEntry {
  /** The entry's path inside the archive, as stored (`word/document.xml`). */
  name: string;
  /** Size once inflated, as the central directory declares it. */
  uncompressedSize: number;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const ZIP64_END_LOCATOR = 0x07064b50;
const ZIP64_END_OF_CENTRAL_DIRECTORY = 0x06064b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const ZIP64_EXTRA_FIELD = 0x0001;
/** The fixed part of the end record; a comment of up to 65,535 bytes may follow it. */
const END_RECORD_LENGTH = 22;
const MAXIMUM_COMMENT_LENGTH = 0xffff;
const CENTRAL_ENTRY_LENGTH = 46;
/**
 * More entries than any Word document has (a few dozen). The directory is read on the event loop
 * while an upload is answered, so its length is what bounds that work: 10,000 entries take a few
 * milliseconds, where 65,000 took up to 180 ms on a loaded machine.
 */
export const MAXIMUM_ZIP_DIRECTORY_ENTRIES = 10_000;

/** True when the bytes start with a ZIP local file header or an empty archive's end record. */
export function looksLikeZip(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 4 &&
    bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    ((bytes[2] === 0x03 && bytes[3] === 0x04) || (bytes[2] === 0x05 && bytes[3] === 0x06))
  );
}

/**
 * The archive's entries, or undefined when no readable central directory is found (a truncated
 * or damaged archive) or it lists more than MAXIMUM_ZIP_DIRECTORY_ENTRIES. ZIP64 archives and
 * archives with data prepended are handled.
 */
export function readZipDirectory(bytes: Uint8Array): ZipEntry[] | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const endOffset = findEndRecord(view);
  if (endOffset === undefined) return undefined;

  let entryCount = view.getUint16(endOffset + 10, true);
  let directorySize = view.getUint32(endOffset + 12, true);
  let directoryOffset = view.getUint32(endOffset + 16, true);
  let directoryEnd = endOffset;

  if (entryCount === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
    const zip64 = readZip64End(view, endOffset);
    if (zip64 === undefined) return undefined;
    ({ entryCount, directorySize, directoryOffset } = zip64);
    directoryEnd = zip64.recordOffset;
  }
  if (entryCount > MAXIMUM_ZIP_DIRECTORY_ENTRIES) return undefined;

  // With bytes prepended (a self-extracting archive), offsets are relative to the archive's own start.
  if (!signatureAt(view, directoryOffset, CENTRAL_DIRECTORY_ENTRY) && entryCount > 0) {
    directoryOffset = directoryEnd - directorySize;
    if (!signatureAt(view, directoryOffset, CENTRAL_DIRECTORY_ENTRY)) return undefined;
  }

  const decoder = new TextDecoder('utf-8');
  const entries: ZipEntry[] = [];
  let offset = directoryOffset;
  for (let index = 0; index < entryCount; index += 1) {
    if (!signatureAt(view, offset, CENTRAL_DIRECTORY_ENTRY) || offset + CENTRAL_ENTRY_LENGTH > view.byteLength) return undefined;
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const nameStart = offset + CENTRAL_ENTRY_LENGTH;
    const extraStart = nameStart + nameLength;
    const next = extraStart + extraLength + commentLength;
    if (next > view.byteLength) return undefined;
    let uncompressedSize = view.getUint32(offset + 24, true);
    if (uncompressedSize === 0xffffffff) {
      uncompressedSize = zip64UncompressedSize(view, extraStart, extraLength) ?? uncompressedSize;
    }
    entries.push({ name: decoder.decode(bytes.subarray(nameStart, extraStart)), uncompressedSize });
    offset = next;
  }
  return entries;
}

function signatureAt(view: DataView, offset: number, signature: number): boolean {
  return offset >= 0 && offset + 4 <= view.byteLength && view.getUint32(offset, true) === signature;
}

/** The end-of-central-directory record is the last one whose comment reaches exactly to the end. */
function findEndRecord(view: DataView): number | undefined {
  const last = view.byteLength - END_RECORD_LENGTH;
  const first = Math.max(0, last - MAXIMUM_COMMENT_LENGTH);
  for (let offset = last; offset >= first; offset -= 1) {
    if (view.getUint32(offset, true) !== END_OF_CENTRAL_DIRECTORY) continue;
    if (offset + END_RECORD_LENGTH + view.getUint16(offset + 20, true) === view.byteLength) return offset;
  }
  return undefined;
}

function readZip64End(
  view: DataView,
  endOffset: number,
): { entryCount: number; directorySize: number; directoryOffset: number; recordOffset: number } | undefined {
  const locator = endOffset - 20;
  if (!signatureAt(view, locator, ZIP64_END_LOCATOR)) return undefined;
  const recordOffset = safeNumber(view.getBigUint64(locator + 8, true));
  if (recordOffset === undefined || !signatureAt(view, recordOffset, ZIP64_END_OF_CENTRAL_DIRECTORY) || recordOffset + 56 > view.byteLength)
    return undefined;
  const entryCount = safeNumber(view.getBigUint64(recordOffset + 32, true));
  const directorySize = safeNumber(view.getBigUint64(recordOffset + 40, true));
  const directoryOffset = safeNumber(view.getBigUint64(recordOffset + 48, true));
  if (entryCount === undefined || directorySize === undefined || directoryOffset === undefined) return undefined;
  return { entryCount, directorySize, directoryOffset, recordOffset };
}

/** In a ZIP64 extra field the 64-bit uncompressed size, when present, comes first. */
function zip64UncompressedSize(view: DataView, start: number, length: number): number | undefined {
  let offset = start;
  const end = start + length;
  while (offset + 4 <= end) {
    const id = view.getUint16(offset, true);
    const size = view.getUint16(offset + 2, true);
    if (id === ZIP64_EXTRA_FIELD && size >= 8 && offset + 12 <= end) return safeNumber(view.getBigUint64(offset + 4, true));
    offset += 4 + size;
  }
  return undefined;
}

function safeNumber(value: bigint): number | undefined {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : undefined;
}
