// Proves extraction from real files built here byte by byte: a hand-written PDF gives its text page by page with page numbers from 1, a PDF with only a drawing is refused as having no text layer (OCR needed), password-protected and damaged PDFs are named as such; a Word document built with JSZip keeps its headings as # lines; HTML and Markdown come out as sections under their headings; text keeps its unicode; mismatched types, empty documents and documents past the page and character limits are refused with the cause.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { asAppError } from '../ingestion/reading-refusals.js';
import { DocumentReadingError } from './document-reading-error.js';
import { chunkMetadata, chunkSections } from './chunking.js';
import { buildDocx, wordParagraph } from '../../test/support/docx-fixture.js';
import { docx, wordBody, wordParts } from '../../test/support/hostile-documents.js';
import { buildPdf, type PdfPage } from '../../test/support/pdf-fixture.js';
import {
  extractDocument,
  DOCUMENT_CHARACTERS_MAXIMUM,
  DOCUMENT_PAGES_MAXIMUM,
  normalizeText,
  type DocumentInput,
  type ExtractionLimits,
} from './extraction.js';

const encoder = new TextEncoder();

/** RC4, as PDF's standard security handler uses it (Node's OpenSSL 3 no longer offers it). */
function rc4(key: Uint8Array, data: Uint8Array): Uint8Array {
  const state = Array.from({ length: 256 }, (_, index) => index);
  for (let i = 0, j = 0; i < 256; i += 1) {
    j = (j + state[i]! + key[i % key.length]!) & 0xff;
    [state[i], state[j]] = [state[j]!, state[i]!];
  }
  const out = new Uint8Array(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n += 1) {
    i = (i + 1) & 0xff;
    j = (j + state[i]!) & 0xff;
    [state[i], state[j]] = [state[j]!, state[i]!];
    out[n] = data[n]! ^ state[(state[i]! + state[j]!) & 0xff]!;
  }
  return out;
}

const PASSWORD_PADDING = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

function padPassword(password: string): Buffer {
  return Buffer.concat([Buffer.from(password, 'latin1'), PASSWORD_PADDING]).subarray(0, 32);
}

/** A PDF encrypted with a user password (standard security handler, revision 2, RC4 40-bit). */
function buildEncryptedPdf(pages: PdfPage[], userPassword: string, ownerPassword: string): Uint8Array {
  const id = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');
  const permissions = -44;
  const ownerKey = createHash('md5').update(padPassword(ownerPassword)).digest().subarray(0, 5);
  const owner = rc4(ownerKey, padPassword(userPassword));
  const permissionBytes = Buffer.alloc(4);
  permissionBytes.writeInt32LE(permissions);
  const key = createHash('md5').update(padPassword(userPassword)).update(owner).update(permissionBytes).update(id).digest().subarray(0, 5);
  const user = rc4(key, PASSWORD_PADDING);
  const hex = (bytes: Uint8Array): string => `<${Buffer.from(bytes).toString('hex')}>`;
  const encryptNumber = 4 + pages.length * 2;
  return buildPdf(pages, {
    objects: [`<< /Filter /Standard /V 1 /R 2 /O ${hex(owner)} /U ${hex(user)} /P ${permissions} >>`],
    trailer: `/Encrypt ${encryptNumber} 0 R /ID [${hex(id)} ${hex(id)}] `,
  });
}

// ---- Helpers ----

function input(fileName: string, content: Uint8Array | string): DocumentInput {
  return { fileName, bytes: typeof content === 'string' ? encoder.encode(content) : content };
}

async function refusal(document: DocumentInput, limits: Partial<ExtractionLimits> = {}): Promise<AppError> {
  try {
    await extractDocument(document, limits);
  } catch (error) {
    expect(error).toBeInstanceOf(DocumentReadingError);
    // What clients see: the AppError the services make of it.
    const appError = asAppError(error);
    expect(appError).toBeInstanceOf(AppError);
    return appError as AppError;
  }
  throw new Error(`expected ${document.fileName} to be refused`);
}

const threePagePdf = buildPdf([
  { lines: ['Chapter 1: Cells', 'All living things are made of cells.'] },
  { lines: ['Chapter 2: Energy (and light)', 'Mitochondria release energy.'] },
  { lines: ['Chapter 3: Growth', 'Cells divide to grow.'] },
]);

describe('PDF extraction', () => {
  it('gives the text of each page with its page number, from 1', async () => {
    const document = await extractDocument(input('biology.pdf', threePagePdf));
    expect(document).toEqual({
      type: 'pdf',
      contentType: 'application/pdf',
      pageCount: 3,
      pagesWithoutText: [],
      sections: [
        { text: 'Chapter 1: Cells\nAll living things are made of cells.', page: 1 },
        { text: 'Chapter 2: Energy (and light)\nMitochondria release energy.', page: 2 },
        { text: 'Chapter 3: Growth\nCells divide to grow.', page: 3 },
      ],
    });
  });

  it('skips pages without text and lists them, keeping the other pages’ numbers', async () => {
    const pdf = buildPdf([{ lines: ['Text on page one.'] }, {}, { lines: ['Text on page three.'] }]);
    const document = await extractDocument(input('mixed.pdf', pdf));
    expect(document.sections).toEqual([
      { text: 'Text on page one.', page: 1 },
      { text: 'Text on page three.', page: 3 },
    ]);
    expect(document.pagesWithoutText).toEqual([2]);
  });

  it('refuses a PDF with no text layer, saying it needs OCR', async () => {
    const error = await refusal(input('scan.pdf', buildPdf([{}, {}])));
    expect(error.code).toBe('unreadable_document');
    expect(error.status).toBe(400);
    expect(error.details).toEqual({ reason: 'no_text_layer' });
    expect(error.message).toMatch(
      /^The PDF has no text layer: none of its 2 pages holds text that can be extracted, so it is most likely a scan/,
    );
    expect(error.message).toContain('OCR');
  });

  it('says "its only page holds no text" for a one-page scan, keeping the negation', async () => {
    const message = (await refusal(input('scan.pdf', buildPdf([{}])))).message;
    expect(message).toMatch(/^The PDF has no text layer: its only page holds no text that can be extracted, so it is most likely a scan/);
  });

  it('refuses a password-protected PDF, saying so', async () => {
    const error = await refusal(input('locked.pdf', buildEncryptedPdf([{ lines: ['Secret'] }], 'user-secret', 'owner-secret')));
    expect(error.code).toBe('unreadable_document');
    expect(error.details).toEqual({ reason: 'encrypted' });
    expect(error.message).toContain('protected by a password');
  });

  it('refuses a damaged PDF, saying so without quoting the parser', async () => {
    const error = await refusal(input('broken.pdf', '%PDF-1.4\nthis is not a PDF body at all\n'));
    expect(error.code).toBe('unreadable_document');
    expect(error.details).toEqual({ reason: 'damaged' });
    expect(error.message).toContain('structure is damaged');
  });

  it('does not disturb the caller’s bytes', async () => {
    const bytes = threePagePdf.slice();
    await extractDocument(input('biology.pdf', bytes));
    expect(bytes).toEqual(threePagePdf);
  });

  it('refuses more pages than the limit before reading their text', async () => {
    const error = await refusal(input('long.pdf', threePagePdf), { maximumPages: 2 });
    expect(error.code).toBe('document_too_large');
    expect(error.status).toBe(413);
    expect(error.details).toEqual({ reason: 'too_many_pages', pages: 3, limit: 2 });
    expect(error.message).toBe('The PDF has 3 pages; at most 2 are read from one document. Split it into smaller documents.');
    expect(DOCUMENT_PAGES_MAXIMUM).toBe(2000);
  });

  it('refuses more characters than the limit', async () => {
    const error = await refusal(input('long.pdf', threePagePdf), { maximumCharacters: 60 });
    expect(error.code).toBe('document_too_large');
    expect(error.details).toEqual({ reason: 'too_many_characters', limit: 60 });
  });

  it('feeds chunks that keep their page, and source URLs that open that page', async () => {
    const document = await extractDocument(input('biology.pdf', threePagePdf));
    const chunks = chunkSections(document.sections, { chunkSize: 100, chunkOverlap: 20 });
    expect(chunks.map((chunk) => [chunk.page, chunk.chunkIndex, chunk.chunkCount])).toEqual([
      [1, 0, 3],
      [2, 1, 3],
      [3, 2, 3],
    ]);
    expect(chunkMetadata(chunks[1]!, { documentId: 9, fileName: 'biology.pdf', sourceUrl: '/files/biology.pdf' })).toEqual({
      filename: 'biology.pdf',
      document_id: 9,
      chunk_index: 1,
      chunk_count: 3,
      page: 2,
      source_url: '/files/biology.pdf#page=2',
    });
  });
});

describe('Word document extraction', () => {
  it('keeps headings as # lines and splits the text under them', async () => {
    const docx = await buildDocx(
      wordParagraph('Photosynthesis', 'Heading1') +
        '<w:p><w:r><w:t xml:space="preserve">Plants turn </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>light</w:t></w:r><w:r><w:t xml:space="preserve"> into sugar.</w:t></w:r></w:p>' +
        wordParagraph('Chlorophyll', 'Heading2') +
        wordParagraph('It is green &amp; absorbs red light. Café 🌱.') +
        wordParagraph('A second paragraph.'),
    );
    const document = await extractDocument(input('photosynthesis.docx', docx));
    expect(document.type).toBe('docx');
    expect(document.sections).toEqual([
      { text: '# Photosynthesis\n\nPlants turn light into sugar.', heading: 'Photosynthesis' },
      {
        text: '## Chlorophyll\n\nIt is green & absorbs red light. Café 🌱.\n\nA second paragraph.',
        heading: 'Photosynthesis > Chlorophyll',
      },
    ]);
  });

  it('reads the Title style as a top heading', async () => {
    const document = await extractDocument(
      input('t.docx', await buildDocx(wordParagraph('Course Guide', 'Title') + wordParagraph('Welcome.'))),
    );
    expect(document.sections).toEqual([{ text: '# Course Guide\n\nWelcome.', heading: 'Course Guide' }]);
  });

  it('refuses a Word document without text', async () => {
    const error = await refusal(input('empty.docx', await buildDocx('<w:p/><w:p/>')));
    expect(error.code).toBe('unreadable_document');
    expect(error.details).toEqual({ reason: 'no_text' });
    expect(error.message).toContain('The Word document holds no text');
  });

  it('refuses a Word document whose XML is broken, as damaged', async () => {
    const error = await refusal(input('broken.docx', await buildDocx('<w:p><w:r><w:t>unclosed')));
    expect(error.code).toBe('unreadable_document');
    expect(error.details).toEqual({ reason: 'damaged' });
  });

  it('reads the text around a picture without inflating the picture, which is left out of the archive mammoth reads', async () => {
    const parts = wordParts('');
    const picture =
      '<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:docPr id="1" name="Picture 1"/>' +
      '<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">' +
      '<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:blipFill><a:blip xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:embed="rId9"/></pic:blipFill></pic:pic>' +
      '</a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>';
    const bytes = await docx('', {
      'word/document.xml': wordBody('Before the picture.').replace(
        '</w:body>',
        `${picture}${wordParagraph('After the picture.')}</w:body>`,
      ),
      'word/_rels/document.xml.rels': parts['word/_rels/document.xml.rels']!.replace(
        '</Relationships>',
        '<Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image1.png"/></Relationships>',
      ),
      // Far past the part limit below: it would be refused if it were inflated.
      'word/media/image1.png': { pattern: '\u0000', bytes: 64 * 1024 },
    });
    const document = await extractDocument(input('picture.docx', bytes), { maximumZipPartBytes: 8 * 1024 });
    expect(document.sections.map((section) => section.text)).toEqual(['Before the picture.\n\nAfter the picture.']);
  });

  it('refuses a Word document whose text part unpacks past the limit, counted while unpacking it', async () => {
    const error = await refusal(input('big.docx', await buildDocx(wordParagraph('x'.repeat(5000)))), { maximumZipPartBytes: 4096 });
    expect(error.code).toBe('document_too_large');
    expect(error.details).toMatchObject({ reason: 'part_too_large', limit: 4096 });
    expect(error.message).toContain('"word/document.xml"');
  });
});

describe('HTML, Markdown and text extraction', () => {
  it('turns an HTML page into sections under its headings, without scripts, styles or entities', async () => {
    const html = `<!doctype html><html><head><title>T</title><style>h1{color:red}</style><script>alert("x")</script></head>
      <body><nav>Home | About</nav><h1>Fish &amp; Chips</h1><p>A British dish&nbsp;&mdash; fried.</p>
      <h2>History</h2><ul><li>1860s</li><li>Today</li></ul></body></html>`;
    const document = await extractDocument(input('page.html', html));
    expect(document).toEqual({
      type: 'html',
      contentType: 'text/html',
      sections: [
        { text: '# Fish & Chips\n\nA British dish — fried.', heading: 'Fish & Chips' },
        { text: '## History\n\n- 1860s\n- Today', heading: 'Fish & Chips > History' },
      ],
    });
  });

  it('refuses an HTML page with no readable text', async () => {
    const error = await refusal(input('empty.html', '<html><head><script>let a = 1;</script></head><body><nav>Menu</nav></body></html>'));
    expect(error.code).toBe('unreadable_document');
    expect(error.message).toContain('The HTML page holds no readable text');
  });

  it('splits Markdown at nested headings, keeping the heading path', async () => {
    const markdown = '# Unit 1\nIntro.\n\n## Lesson A\nFirst.\n\n### Exercise\nDo it.\n\n## Lesson B\nSecond.\n';
    const document = await extractDocument(input('unit.md', markdown));
    expect(document.sections.map((section) => section.heading)).toEqual([
      'Unit 1',
      'Unit 1 > Lesson A',
      'Unit 1 > Lesson A > Exercise',
      'Unit 1 > Lesson B',
    ]);
    expect(document.sections[2]!.text).toBe('### Exercise\n\nDo it.');
  });

  it('keeps plain text as one section, with its unicode and emoji, NFC-normalised and with line feeds only', async () => {
    const text = '\ufeffCafe\u0301 🎓 日本語 👩‍👩‍👧\r\nNext line\r\n\r\n\r\n\r\nAfter\fpage break';
    const document = await extractDocument(input('notes.txt', text));
    expect(document).toEqual({
      type: 'txt',
      contentType: 'text/plain',
      sections: [{ text: 'Café 🎓 日本語 👩‍👩‍👧\nNext line\n\nAfter\n\npage break' }],
    });
  });

  it('refuses text with only blank space', async () => {
    const error = await refusal(input('blank.txt', ' \n\t\n '));
    expect(error.code).toBe('unreadable_document');
    expect(error.details).toEqual({ reason: 'no_text' });
  });

  it('refuses text past the character limit, by default at five million characters', async () => {
    const error = await refusal(input('long.txt', 'a'.repeat(101)), { maximumCharacters: 100 });
    expect(error.code).toBe('document_too_large');
    expect(error.message).toBe(
      'The document holds more than 100 characters of text, the most indexed from one document; split it into smaller documents.',
    );
    expect(DOCUMENT_CHARACTERS_MAXIMUM).toBe(5_000_000);
    await expect(extractDocument(input('fits.txt', 'a'.repeat(100)), { maximumCharacters: 100 })).resolves.toMatchObject({ type: 'txt' });
  });
});

describe('mismatched types', () => {
  it('are refused before any parser runs', async () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const asPdf = await refusal(input('photo.pdf', png));
    expect(asPdf.code).toBe('invalid_file');
    expect(asPdf.message).toContain('a PNG image');
    expect((await refusal(input('paper.txt', threePagePdf))).message).toContain('its content is a PDF document');
    expect((await refusal(input('paper.docx', threePagePdf))).details).toMatchObject({ reason: 'type_mismatch' });
    expect((await refusal(input('essay.pdf', await buildDocx(wordParagraph('Hi'))))).details).toMatchObject({
      reason: 'type_mismatch',
      found: 'a Word document (.docx)',
    });
  });
});

describe('normalizeText', () => {
  it('removes control characters and lone surrogates but keeps tabs, emoji and paragraph breaks', () => {
    expect(normalizeText('a\u0000b\u0007c\td \ud800 e\udc00 🎓  \n\n\n\nf\u0085')).toBe('abc\td \ufffd e\ufffd 🎓\n\nf');
  });
});
