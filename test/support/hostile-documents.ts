/**
 * A hostile-document corpus built in memory, for the test that proves each one fails cleanly and
 * for the benchmark that ingests it while timing /healthz: decompression bombs in every part of a
 * Word document, ZIP archives that lie about their sizes or nest other archives, XML with external
 * entities and exponential entity expansion, a PDF whose compressed stream inflates without end
 * (also one disguised as an image, which only the worker's budgets stop), and text made of
 * pathological whitespace. Bombs are deflated as a stream, so a 300 MB bomb costs a few hundred
 * kilobytes and never exists inflated in the test process.
 */
import { Readable } from 'node:stream';
import zlib from 'node:zlib';

/** `pattern` repeated until `bytes` in all (prefix and suffix included). */
export interface Bomb {
  pattern: string;
  bytes: number;
  prefix?: string;
  suffix?: string;
}

export interface ZipEntrySpec {
  name: string;
  content: string | Uint8Array | Bomb;
  /** A size the archive declares instead of the real one: a lying archive. */
  declaredSize?: number;
}

interface Compressed {
  compressed: Buffer;
  crc: number;
  size: number;
}

function* bombPieces(bomb: Bomb): Generator<Buffer> {
  const head = Buffer.from(bomb.prefix ?? '', 'utf8');
  const tail = Buffer.from(bomb.suffix ?? '', 'utf8');
  const block = Buffer.from(bomb.pattern.repeat(Math.max(1, Math.floor(65_536 / Math.max(1, bomb.pattern.length)))), 'utf8');
  yield head;
  let remaining = Math.max(0, bomb.bytes - head.length - tail.length);
  while (remaining > 0) {
    const piece = remaining >= block.length ? block : block.subarray(0, remaining);
    remaining -= piece.length;
    yield piece;
  }
  yield tail;
}

/** Deflates `pieces` as one stream (raw for ZIP entries, zlib-wrapped for PDF streams), with the CRC-32 and length of the input. */
async function deflatePieces(pieces: Iterable<Buffer>, format: 'raw' | 'zlib'): Promise<Compressed> {
  let crc = 0;
  let size = 0;
  const counted = function* (): Generator<Buffer> {
    for (const piece of pieces) {
      crc = zlib.crc32(piece, crc);
      size += piece.length;
      yield piece;
    }
  };
  const deflater = format === 'raw' ? zlib.createDeflateRaw({ level: 9 }) : zlib.createDeflate({ level: 9 });
  const output: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    deflater.on('data', (chunk: Buffer) => output.push(chunk));
    deflater.on('end', resolve);
    deflater.on('error', reject);
  });
  Readable.from(counted(), { objectMode: false }).pipe(deflater);
  await done;
  return { compressed: Buffer.concat(output), crc, size };
}

function piecesOf(content: ZipEntrySpec['content']): Buffer[] | Generator<Buffer> {
  if (typeof content === 'string') return [Buffer.from(content, 'utf8')];
  if (content instanceof Uint8Array) return [Buffer.from(content)];
  return bombPieces(content);
}

/** A ZIP archive of deflated entries whose declared sizes can lie. */
export async function buildZip(entries: readonly ZipEntrySpec[]): Promise<Uint8Array> {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const { compressed, crc, size } = await deflatePieces(piecesOf(entry.content), 'raw');
    const declared = entry.declaredSize ?? size;
    const name = Buffer.from(entry.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(0x21, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(0x21, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, compressed);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Uint8Array.from(Buffer.concat([...locals, directory, end]));
}

const WORD = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

export function wordBody(text: string): string {
  return `${XML_DECLARATION}<w:document xmlns:w="${WORD}"><w:body><w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p></w:body></w:document>`;
}

/** The parts of a small, valid Word document with styles, numbering and footnotes, keyed by name. */
export function wordParts(text: string): Record<string, string> {
  return {
    '[Content_Types].xml':
      `${XML_DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
      '</Types>',
    '_rels/.rels':
      `${XML_DECLARATION}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
      '</Relationships>',
    'word/_rels/document.xml.rels':
      `${XML_DECLARATION}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>' +
      '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>' +
      '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/>' +
      '</Relationships>',
    'word/document.xml': wordBody(text),
    'word/styles.xml': `${XML_DECLARATION}<w:styles xmlns:w="${WORD}"></w:styles>`,
    'word/numbering.xml': `${XML_DECLARATION}<w:numbering xmlns:w="${WORD}"></w:numbering>`,
    'word/footnotes.xml': `${XML_DECLARATION}<w:footnotes xmlns:w="${WORD}"></w:footnotes>`,
  };
}

/** A Word document from `wordParts(text)`, with some parts replaced or added. */
export function docx(
  text: string,
  replaced: Record<string, ZipEntrySpec['content']> = {},
  declaredSizes: Record<string, number> = {},
): Promise<Uint8Array> {
  const parts: Record<string, ZipEntrySpec['content']> = { ...wordParts(text), ...replaced };
  return buildZip(
    Object.entries(parts).map(([name, content]) => ({
      name,
      content,
      ...(declaredSizes[name] !== undefined ? { declaredSize: declaredSizes[name] } : {}),
    })),
  );
}

/** An XML part that inflates to `bytes`: the element `root` holding that much whitespace. */
export function xmlBomb(root: string, bytes: number): Bomb {
  return { prefix: `${XML_DECLARATION}<${root} xmlns:w="${WORD}">`, pattern: ' ', bytes, suffix: `</${root}>` };
}

/** A PDF whose one page's content stream is Flate-compressed and inflates to `bytes`. */
export async function pdfFlateBomb(bytes: number, options: { disguisedAsImage?: boolean } = {}): Promise<Uint8Array> {
  const { compressed } = await deflatePieces(
    bombPieces({ prefix: 'BT /F1 12 Tf 72 720 Td (Bomb) Tj ET\n', pattern: '0 0 m\n', bytes }),
    'zlib',
  );
  const subtype = options.disguisedAsImage ? '/Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 ' : '';
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>', 'latin1'),
    Buffer.from('<< /Type /Pages /Kids [4 0 R] /Count 1 >>', 'latin1'),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>', 'latin1'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>', 'latin1'),
    Buffer.concat([
      Buffer.from(`<< ${subtype}/Length ${compressed.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'),
      compressed,
      Buffer.from('\nendstream', 'latin1'),
    ]),
  ];
  const pieces: Buffer[] = [Buffer.from('%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n', 'latin1')];
  let length = pieces[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(length);
    const object = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    pieces.push(object);
    length += object.length;
  });
  let trailer = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) trailer += `${String(offset).padStart(10, '0')} 00000 n \n`;
  trailer += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  pieces.push(Buffer.from(trailer, 'latin1'));
  return Uint8Array.from(Buffer.concat(pieces));
}

/** The XXE attempt: an external entity naming a file of the server. */
export const XXE_DOCUMENT_XML =
  `${XML_DECLARATION}<!DOCTYPE w:document [<!ENTITY secret SYSTEM "file:///etc/passwd">]>` +
  `<w:document xmlns:w="${WORD}"><w:body><w:p><w:r><w:t>&secret;</w:t></w:r></w:p></w:body></w:document>`;

/** "Billion laughs": ten levels of ten references each, 10^9 "lol"s once expanded. */
export function billionLaughs(root: string): string {
  const levels = ['<!ENTITY lol0 "lol">'];
  for (let level = 1; level <= 9; level += 1) levels.push(`<!ENTITY lol${level} "${`&lol${level - 1};`.repeat(10)}">`);
  return `${XML_DECLARATION}<!DOCTYPE ${root} [${levels.join('')}]><${root} xmlns:w="${WORD}"><w:p><w:r><w:t>&lol9;</w:t></w:r></w:p></${root}>`;
}

export type ExpectedOutcome = { status: 'completed' } | { status: 'failed'; reasons: readonly string[] };

export interface HostileDocument {
  /** What the document attacks, for test names and the benchmark's table. */
  label: string;
  fileName: string;
  bytes: Uint8Array;
  expected: ExpectedOutcome;
}

export interface CorpusScale {
  /** How far a ZIP bomb inflates: past INGESTION_ZIP_PART_MAX_BYTES. */
  zipBombBytes: number;
  /** Each of several honest parts, together past INGESTION_ZIP_TOTAL_MAX_BYTES but each under the part limit. */
  zipPartBytes: number;
  zipParts: number;
  /** How far the PDF bomb inflates: past INGESTION_PDF_INFLATED_MAX_BYTES. */
  pdfBombBytes: number;
  /** Characters of pathological whitespace in text documents. */
  whitespaceCharacters: number;
}

const TOO_LARGE = ['part_too_large', 'archive_too_large'];

/** The corpus, scaled: bombs in every part, lying and nested ZIPs, XXE, billion laughs, a PDF bomb, whitespace. */
export async function hostileCorpus(scale: CorpusScale): Promise<HostileDocument[]> {
  const text = 'Sediment settles in layers at the bottom of lakes.';
  const corpus: HostileDocument[] = [];
  const bombParts: Array<[string, string]> = [
    ['word/document.xml', 'w:document'],
    ['word/styles.xml', 'w:styles'],
    ['word/numbering.xml', 'w:numbering'],
    ['word/footnotes.xml', 'w:footnotes'],
    ['[Content_Types].xml', 'Types'],
    ['word/_rels/document.xml.rels', 'Relationships'],
  ];
  for (const [part, root] of bombParts) {
    corpus.push({
      label: `ZIP bomb in ${part}`,
      fileName: 'bomb.docx',
      bytes: await docx(text, { [part]: xmlBomb(root, scale.zipBombBytes) }),
      expected: { status: 'failed', reasons: TOO_LARGE },
    });
    // The same bomb declaring a tiny size: refused while inflating, as a lie or as too large, whichever is seen first.
    corpus.push({
      label: `ZIP bomb in ${part} declaring 1 KB`,
      fileName: 'lying-bomb.docx',
      bytes: await docx(text, { [part]: xmlBomb(root, scale.zipBombBytes) }, { [part]: 1024 }),
      expected: { status: 'failed', reasons: [...TOO_LARGE, 'damaged'] },
    });
  }
  corpus.push({
    label: 'ZIP parts each under the part limit, together past the total',
    fileName: 'many-parts.docx',
    bytes: await docx(
      text,
      Object.fromEntries(
        Array.from({ length: scale.zipParts }, (_, index) => [`word/header${index + 1}.xml`, xmlBomb('w:hdr', scale.zipPartBytes)]),
      ),
    ),
    expected: { status: 'failed', reasons: ['archive_too_large'] },
  });
  corpus.push({
    label: 'ZIP declaring a larger size than its part holds',
    fileName: 'lying-size.docx',
    bytes: await docx(text, {}, { 'word/styles.xml': 5_000_000 }),
    expected: { status: 'failed', reasons: ['damaged', 'part_too_large'] },
  });
  corpus.push({
    label: 'ZIP declaring a smaller size than its part holds',
    fileName: 'lying-small.docx',
    bytes: await docx(text, { 'word/styles.xml': xmlBomb('w:styles', 64 * 1024) }, { 'word/styles.xml': 100 }),
    expected: { status: 'failed', reasons: ['damaged'] },
  });
  // Parts mammoth never reads are never inflated: the document's text is indexed.
  corpus.push({
    label: 'ZIP bomb as an image (word/media)',
    fileName: 'media-bomb.docx',
    bytes: await docx(text, { 'word/media/image1.png': { pattern: '\u0000', bytes: scale.zipBombBytes * 4 } }),
    expected: { status: 'completed' },
  });
  const inner = await docx('inner', { 'word/document.xml': xmlBomb('w:document', scale.zipBombBytes) });
  corpus.push({
    label: 'nested ZIP (an embedded .docx holding a bomb)',
    fileName: 'nested.docx',
    bytes: await docx(text, { 'word/embeddings/inner.docx': inner }),
    expected: { status: 'completed' },
  });
  corpus.push({
    label: 'nested ZIP named like an XML part',
    fileName: 'nested-xml.docx',
    bytes: await docx(text, { 'word/styles.xml': inner }),
    expected: { status: 'failed', reasons: ['damaged'] },
  });
  corpus.push({
    label: 'XXE: external entity in word/document.xml',
    fileName: 'xxe.docx',
    bytes: await docx(text, { 'word/document.xml': XXE_DOCUMENT_XML }),
    expected: { status: 'failed', reasons: ['document_type_declaration'] },
  });
  corpus.push({
    label: 'billion laughs in word/document.xml',
    fileName: 'laughs.docx',
    bytes: await docx(text, { 'word/document.xml': billionLaughs('w:document') }),
    expected: { status: 'failed', reasons: ['document_type_declaration'] },
  });
  corpus.push({
    label: 'billion laughs in word/styles.xml',
    fileName: 'laughs-styles.docx',
    bytes: await docx(text, { 'word/styles.xml': billionLaughs('w:styles') }),
    expected: { status: 'failed', reasons: ['document_type_declaration'] },
  });
  corpus.push({
    label: 'PDF Flate bomb',
    fileName: 'bomb.pdf',
    bytes: await pdfFlateBomb(scale.pdfBombBytes),
    expected: { status: 'failed', reasons: ['too_much_compressed_content'] },
  });
  const spaces = scale.whitespaceCharacters;
  corpus.push({
    label: 'text: x, a long run of spaces, x',
    fileName: 'spaces.txt',
    bytes: new TextEncoder().encode(`x${' '.repeat(spaces)}x\n`),
    expected: { status: 'completed' },
  });
  corpus.push({
    label: 'text: spaces at line ends',
    fileName: 'trailing.txt',
    bytes: new TextEncoder().encode(`x${' '.repeat(spaces)}\nend`),
    expected: { status: 'completed' },
  });
  corpus.push({
    label: 'Markdown: heading followed by spaces',
    fileName: 'heading.md',
    bytes: new TextEncoder().encode(`# x${' '.repeat(spaces)}\n\nbody`),
    expected: { status: 'completed' },
  });
  corpus.push({
    label: 'HTML: <pre> and spaces',
    fileName: 'pre.html',
    bytes: new TextEncoder().encode(`<html><body><pre>${' '.repeat(spaces)}</pre><p>after</p></body></html>`),
    expected: { status: 'completed' },
  });
  corpus.push({
    label: 'text: blank lines only between words',
    fileName: 'blank.txt',
    bytes: new TextEncoder().encode(`a${'\n'.repeat(spaces)}b`),
    expected: { status: 'completed' },
  });
  return corpus;
}
