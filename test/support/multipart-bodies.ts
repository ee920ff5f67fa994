/**
 * Hand-made multipart/form-data bodies for the upload routes, for the API fuzz suite: the ones a
 * browser sends and the odd ones no client library would produce (no parts, two files, missing
 * closing boundary, hostile file names, parts without a disposition, lying extensions).
 */
import type { SeededRandom } from './seeded-random.js';

export interface MultipartBody {
  variant: string;
  contentType: string;
  body: Uint8Array;
}

interface Part {
  headers: string[];
  content: Uint8Array | string;
}

const encoder = new TextEncoder();

const FRIENDLY_FILES: ReadonlyArray<readonly [string, string]> = [
  ['notes.txt', 'Photosynthesis turns light into sugar.\n'],
  ['lesson.md', '# Cells\n\nThe nucleus holds the DNA.\n'],
  ['data.json', '{"topic":"rivers","weeks":[1,2,3]}'],
  ['marks.csv', 'name,score\nAna,7\nLuis,9\n'],
  ['page.html', '<html><body><h1>Volcanoes</h1><p>Magma rises.</p></body></html>'],
  ['Ünïcödé ñame 🦙.md', '# Título\n\nTexto en español.\n'],
];

const HOSTILE_FILE_NAMES: readonly string[] = [
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '/absolute/path.txt',
  'a/b/c.md',
  '',
  '.',
  '..',
  '...',
  '.htaccess',
  'noextension',
  'CON.txt',
  'name\u0000hidden.txt',
  'x'.repeat(400) + '.txt',
  'x' + '.'.repeat(5_000) + 'x.txt',
  'trailing dots and spaces. . . .txt. . .',
  'a.txt.exe',
  '%2e%2e%2fescape.txt',
  'quote"in name.txt',
  '\u202egnp.txt',
  '🦙'.repeat(200) + '.md',
];

const ODD_CONTENTS: ReadonlyArray<readonly [string, Uint8Array]> = [
  ['empty', new Uint8Array()],
  ['binary bytes', Uint8Array.from({ length: 512 }, (_, index) => (index * 37) % 256)],
  ['invalid UTF-8', Uint8Array.from([0x68, 0x69, 0xff, 0xfe, 0xc0, 0xaf, 0x0a])],
  ['a PNG header', Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])],
  ['NUL bytes in text', encoder.encode('before\u0000after\u0000\n')],
  ['a fake PDF', encoder.encode('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF')],
  ['a fake ZIP', Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0, 0, 0, 0, 0])],
  ['broken JSON', encoder.encode('{"a": [1, 2')],
  ['a long line', encoder.encode('word '.repeat(20_000))],
];

function concatenate(pieces: Array<Uint8Array | string>): Uint8Array {
  const arrays = pieces.map((piece) => (typeof piece === 'string' ? encoder.encode(piece) : piece));
  const result = new Uint8Array(arrays.reduce((sum, array) => sum + array.length, 0));
  let offset = 0;
  for (const array of arrays) {
    result.set(array, offset);
    offset += array.length;
  }
  return result;
}

function filePart(fileName: string, content: Uint8Array | string, field = 'file', type = 'application/octet-stream'): Part {
  return {
    headers: [`Content-Disposition: form-data; name="${field}"; filename="${fileName.replace(/"/g, '%22')}"`, `Content-Type: ${type}`],
    content,
  };
}

function assemble(boundary: string, parts: Part[], options: { closing?: boolean; lineEnd?: string; preamble?: string } = {}): Uint8Array {
  const lineEnd = options.lineEnd ?? '\r\n';
  const pieces: Array<Uint8Array | string> = [options.preamble ?? ''];
  for (const part of parts)
    pieces.push(`--${boundary}${lineEnd}`, part.headers.map((header) => header + lineEnd).join(''), lineEnd, part.content, lineEnd);
  if (options.closing !== false) pieces.push(`--${boundary}--${lineEnd}`);
  return concatenate(pieces);
}

/** One generated multipart body; most are odd, some are what a browser sends. */
export function multipartBody(random: SeededRandom): MultipartBody {
  const boundary = `----fuzz${random.integer(100_000, 999_999)}`;
  const contentType = `multipart/form-data; boundary=${boundary}`;
  const [friendlyName, friendlyContent] = random.pick(FRIENDLY_FILES);
  const friendly = filePart(friendlyName, friendlyContent);
  const variant = random.weighted<string>([
    [4, 'a friendly file'],
    [4, 'a hostile file name'],
    [3, 'odd content'],
    [1, 'no parts'],
    [1, 'only a text field'],
    [1, 'two files'],
    [1, 'the file under another field name'],
    [1, 'a part without a disposition'],
    [1, 'an RFC 5987 file name'],
    [1, 'no closing boundary'],
    [1, 'a boundary that does not match'],
    [1, 'no boundary parameter'],
    [1, 'an empty boundary parameter'],
    [1, 'bare LF line ends'],
    [1, 'preamble garbage'],
    [1, 'a base64 transfer encoding'],
    [1, 'a 20 kB part header'],
    [1, 'a lying extension'],
  ]);
  switch (variant) {
    case 'a friendly file':
      return { variant: `${variant} (${friendlyName})`, contentType, body: assemble(boundary, [friendly]) };
    case 'a hostile file name': {
      const name = random.pick(HOSTILE_FILE_NAMES);
      return { variant: `${variant} (${name.slice(0, 40)})`, contentType, body: assemble(boundary, [filePart(name, friendlyContent)]) };
    }
    case 'odd content': {
      const [what, content] = random.pick(ODD_CONTENTS);
      return {
        variant: `${variant}: ${what} as ${friendlyName}`,
        contentType,
        body: assemble(boundary, [filePart(friendlyName, content)]),
      };
    }
    case 'no parts':
      return { variant, contentType, body: encoder.encode(`--${boundary}--\r\n`) };
    case 'only a text field':
      return {
        variant,
        contentType,
        body: assemble(boundary, [{ headers: ['Content-Disposition: form-data; name="note"'], content: 'hello' }]),
      };
    case 'two files':
      return { variant, contentType, body: assemble(boundary, [friendly, filePart('second.txt', 'second file')]) };
    case 'the file under another field name':
      return { variant, contentType, body: assemble(boundary, [filePart(friendlyName, friendlyContent, 'upload')]) };
    case 'a part without a disposition':
      return { variant, contentType, body: assemble(boundary, [{ headers: ['Content-Type: text/plain'], content: 'orphan part' }]) };
    case 'an RFC 5987 file name':
      return {
        variant,
        contentType,
        body: assemble(boundary, [
          {
            headers: ['Content-Disposition: form-data; name="file"; filename*=UTF-8\'\'%F0%9F%A6%99%2e%2e%2Fllama.md'],
            content: friendlyContent,
          },
        ]),
      };
    case 'no closing boundary':
      return { variant, contentType, body: assemble(boundary, [friendly], { closing: false }) };
    case 'a boundary that does not match':
      return { variant, contentType: `multipart/form-data; boundary=${boundary}-other`, body: assemble(boundary, [friendly]) };
    case 'no boundary parameter':
      return { variant, contentType: 'multipart/form-data', body: assemble(boundary, [friendly]) };
    case 'an empty boundary parameter':
      return { variant, contentType: 'multipart/form-data; boundary=', body: assemble(boundary, [friendly]) };
    case 'bare LF line ends':
      return { variant, contentType, body: assemble(boundary, [friendly], { lineEnd: '\n' }) };
    case 'preamble garbage':
      return { variant, contentType, body: assemble(boundary, [friendly], { preamble: 'garbage before the first boundary\r\n' }) };
    case 'a base64 transfer encoding':
      return {
        variant,
        contentType,
        body: assemble(boundary, [
          {
            headers: [...friendly.headers, 'Content-Transfer-Encoding: base64'],
            content: Buffer.from(friendlyContent).toString('base64'),
          },
        ]),
      };
    case 'a 20 kB part header':
      return {
        variant,
        contentType,
        body: assemble(boundary, [{ headers: [...friendly.headers, `X-Padding: ${'p'.repeat(20_000)}`], content: friendlyContent }]),
      };
    default:
      return {
        variant,
        contentType,
        body: assemble(boundary, [filePart(random.pick(['lie.pdf', 'lie.docx', 'lie.json', 'lie.html']), friendlyContent)]),
      };
  }
}
