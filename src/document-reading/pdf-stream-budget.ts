/**
 * A PDF's compressed streams, measured before pdf.js opens the file. pdf.js inflates a Flate
 * stream whole, in ArrayBuffers that V8's heap limit does not count, so an 895 KB file holding
 * one 300 MB stream would take hundreds of megabytes and a minute before any text limit could
 * apply. Here every Flate stream is inflated as a zlib stream whose output is only counted, and
 * the scan stops as soon as the streams together pass the budget: the document is then refused
 * with a reason instead of being handed to pdf.js.
 *
 * Image streams are skipped: text extraction never decodes them, and image-heavy slides would
 * otherwise be refused for pictures nobody indexes. A stream that lies about being an image, or
 * an encrypted one (its bytes do not inflate until pdf.js decrypts them), gets past this scan;
 * the worker's memory and time budgets are the second line for those.
 */
import zlib from 'node:zlib';
import { DocumentReadingError } from './document-reading-error.js';

const STREAM_KEYWORD = Buffer.from('stream', 'latin1');
/** How far back from `stream` the stream's dictionary is looked for. */
const DICTIONARY_WINDOW = 4096;
const FLATE_FILTER = /\/FlateDecode\b/g;
const IMAGE_SUBTYPE = /\/Subtype\s{0,8}\/Image\b/;
/** Filter chains longer than this are refused outright: no producer nests compression that deep. */
const FLATE_LAYERS_MAXIMUM = 2;

function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

function tooMuchData(limit: number): DocumentReadingError {
  return new DocumentReadingError(
    'document_too_large',
    `The PDF's compressed content unpacks to more than ${formatCount(limit)} bytes, the most read from one document. Split it into smaller documents or export it again without the oversized content.`,
    {
      param: 'file',
      details: { reason: 'too_much_compressed_content', limit },
    },
  );
}

/**
 * The dictionary text in front of a `stream` keyword: from the object's `obj` to the keyword,
 * never further back than where the previous stream ended, so that each byte of the file is read
 * once however many `stream` keywords it holds.
 */
function dictionaryBefore(bytes: Buffer, keyword: number, previousEnd: number): string {
  const start = Math.max(previousEnd, keyword - DICTIONARY_WINDOW);
  const text = bytes.toString('latin1', start, keyword);
  const objectStart = text.lastIndexOf(' obj');
  return objectStart === -1 ? text : text.slice(objectStart);
}

/**
 * Whether `data` starts with a zlib header pdf.js accepts (deflate, a valid check, no preset
 * dictionary): pdf.js refuses to inflate anything else, so neither does the scan, which keeps a
 * file full of fake `stream` keywords cheap to read.
 */
function startsLikeZlib(data: Buffer): boolean {
  if (data.length < 2) return false;
  const method = data[0]! & 0x0f;
  const flags = data[1]!;
  return method === 8 && ((data[0]! << 8) | flags) % 31 === 0 && (flags & 0x20) === 0;
}

/**
 * Inflates `data` and returns how many bytes it gives, stopping once `budget` is passed, and how
 * many bytes of `data` the compressed stream took (zlib stops at the stream's own end, so `data`
 * may run on past it). With `keep` the output itself is returned too (for the next layer of a
 * chain). A stream that is damaged counts what it gave before the damage, as pdf.js would have
 * used that much.
 */
function inflateCounting(data: Buffer, budget: number, keep: boolean): Promise<{ length: number; consumed: number; output?: Buffer }> {
  return new Promise((resolve) => {
    const inflater = zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
    const pieces: Buffer[] = [];
    let length = 0;
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      const consumed = inflater.bytesWritten;
      inflater.destroy();
      resolve(keep ? { length, consumed, output: Buffer.concat(pieces) } : { length, consumed });
    };
    inflater.on('data', (piece: Buffer) => {
      length += piece.length;
      if (keep) pieces.push(piece);
      if (length > budget) finish();
    });
    inflater.on('end', finish);
    inflater.on('error', finish);
    inflater.end(data);
  });
}

/**
 * Refuses with `document_too_large` a PDF whose Flate streams (other than images) inflate to
 * more than `maximumBytes` together.
 */
export async function requirePdfStreamsWithinBudget(bytes: Uint8Array, maximumBytes: number): Promise<void> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let remaining = maximumBytes;
  let from = 0;
  let previousEnd = 0;
  for (;;) {
    const keyword = buffer.indexOf(STREAM_KEYWORD, from);
    if (keyword === -1) return;
    from = keyword + STREAM_KEYWORD.length;
    // `endstream` contains `stream`; only the opening keyword starts data.
    if (keyword >= 3 && buffer.toString('latin1', keyword - 3, keyword) === 'end') continue;
    let dataStart = from;
    if (buffer[dataStart] === 0x0d) dataStart += 1;
    if (buffer[dataStart] === 0x0a) dataStart += 1;
    const dictionary = dictionaryBefore(buffer, keyword, previousEnd);
    previousEnd = from;
    const layers = dictionary.match(FLATE_FILTER)?.length ?? 0;
    if (layers === 0 || IMAGE_SUBTYPE.test(dictionary)) continue;
    if (layers > FLATE_LAYERS_MAXIMUM) throw tooMuchData(maximumBytes);
    // Not cut at `endstream`: compressed bytes may hold that word (a stored block can), and pdf.js
    // reads /Length bytes, not up to the word. zlib itself stops where the compressed stream ends.
    let data = buffer.subarray(dataStart);
    let consumed = 0;
    for (let layer = 1; layer <= layers; layer += 1) {
      if (!startsLikeZlib(data)) break;
      const last = layer === layers;
      const inflated = await inflateCounting(data, remaining, !last);
      if (inflated.length > remaining) throw tooMuchData(maximumBytes);
      // Every layer of a chain is held by pdf.js at some point, so each one counts.
      remaining -= inflated.length;
      if (layer === 1) consumed = inflated.consumed;
      if (!last) data = inflated.output ?? Buffer.alloc(0);
    }
    // On after the compressed bytes. However many streams a file claims, every byte inflated counts
    // against the one budget, which bounds the work of the whole scan.
    from = Math.max(from, dataStart + consumed);
    previousEnd = from;
  }
}
