// Proves a document's type is judged by content as well as name: a PDF must start with %PDF-, a Word document must be a ZIP holding word/document.xml, text must be UTF-8 without NUL bytes; a PNG named .pdf, a spreadsheet or plain ZIP named .docx, a PDF named .txt or binary data named .txt are refused with invalid_file saying what the content is.
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { asAppError } from '../ingestion/reading-refusals.js';
import { DocumentReadingError } from './document-reading-error.js';
import { detectDocumentType, detectUploadedDocumentType } from './document-types.js';
import { ZIP_DIRECTORY_ENTRIES_MAXIMUM, readZipDirectory } from './bounded-zip.js';

const encoder = new TextEncoder();
const PDF_BYTES = encoder.encode('%PDF-1.7\n%\u00e2\u00e3\n1 0 obj\n<< >>\nendobj\n');
const PNG_BYTES = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);
const OLE_BYTES = Uint8Array.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0x00, 0x00, 0x3e, 0x00]);

async function zipOf(files: Record<string, string>): Promise<Uint8Array> {
  const zip = new JSZip();
  for (const [name, content] of Object.entries(files)) zip.file(name, content);
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
}

const docxBytes = await zipOf({
  '[Content_Types].xml': '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
  '_rels/.rels': '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"/>',
  'word/document.xml': `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${'<w:p/>'.repeat(500)}</w:body></w:document>`,
});

async function refusal(fileName: string, bytes: Uint8Array | string): Promise<AppError> {
  try {
    await detectDocumentType({ fileName, bytes: typeof bytes === 'string' ? encoder.encode(bytes) : bytes });
  } catch (error) {
    expect(error).toBeInstanceOf(DocumentReadingError);
    // What clients see: the AppError the services make of it.
    const appError = asAppError(error) as AppError;
    expect(appError).toBeInstanceOf(AppError);
    expect(appError.code).toBe('invalid_file');
    expect(appError.status).toBe(400);
    expect(appError.param).toBe('file');
    return appError;
  }
  throw new Error(`expected ${fileName} to be refused`);
}

describe('detectDocumentType accepts documents whose content matches their name', () => {
  it.each([
    ['notes.txt', 'Plain text, ünïcödé 🎓\r\n', 'txt', 'text/plain'],
    ['README.md', '# Title\n\nBody', 'md', 'text/markdown'],
    ['guide.markdown', '# Title', 'md', 'text/markdown'],
    ['page.html', '<!doctype html><p>Hi</p>', 'html', 'text/html'],
    ['PAGE.HTM', '<p>Hi</p>', 'html', 'text/html'],
    ['bom.txt', '\ufeffWith a byte order mark', 'txt', 'text/plain'],
    ['about-pdf.txt', 'A note: files that start with %PDF- are PDFs.', 'txt', 'text/plain'],
  ])('%s as %s', async (fileName, text, type, contentType) => {
    expect(await detectDocumentType({ fileName, bytes: encoder.encode(text) })).toEqual({ type, contentType });
  });

  it('a PDF by its %PDF- header, also after bytes some generators put before it', async () => {
    expect((await detectDocumentType({ fileName: 'paper.pdf', bytes: PDF_BYTES })).type).toBe('pdf');
    const prefixed = new Uint8Array([...encoder.encode('junk '.repeat(100)), ...PDF_BYTES]);
    expect((await detectDocumentType({ fileName: 'paper.PDF', bytes: prefixed })).contentType).toBe('application/pdf');
  });

  it('a Word document as a ZIP holding word/document.xml, listing its entries', async () => {
    const detected = await detectDocumentType({ fileName: 'essay.docx', bytes: docxBytes });
    expect(detected.type).toBe('docx');
    expect(detected.contentType).toBe('application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    const main = detected.zipEntries!.find((entry) => entry.name === 'word/document.xml')!;
    expect(main.uncompressedSize).toBeGreaterThan(3000);
  });

  it('a Word document that stores a PDF uncompressed near its start, as a Word document', async () => {
    const zip = new JSZip();
    zip.file('embedded.pdf', '%PDF-1.4 an attachment', { compression: 'STORE' });
    zip.file('word/document.xml', '<w:document/>');
    const bytes = await zip.generateAsync({ type: 'uint8array' });
    expect((await detectDocumentType({ fileName: 'with-attachment.docx', bytes })).type).toBe('docx');
    expect((await refusal('with-attachment.pdf', bytes)).details).toMatchObject({ found: 'a Word document (.docx)' });
  });
});

describe('detectDocumentType refuses content that is not what the name says', () => {
  it('a PNG named .pdf, saying it is a PNG image', async () => {
    const error = await refusal('scan.pdf', PNG_BYTES);
    expect(error.details).toEqual({ reason: 'type_mismatch', found: 'a PNG image' });
    expect(error.message).toBe('The file is named .pdf but its content is a PNG image, not a PDF document (PDF files start with %PDF-).');
  });

  it('text named .pdf', async () => {
    expect((await refusal('notes.pdf', 'just some words')).message).toContain('its content is text, not a PDF document');
  });

  it('a Word document named .pdf, pointing at .docx', async () => {
    expect((await refusal('essay.pdf', docxBytes)).message).toBe(
      'The file is named .pdf but its content is a Word document (.docx), not a PDF document (PDF files start with %PDF-). Upload it with the .docx extension instead.',
    );
  });

  it('a PDF named .docx, pointing at .pdf', async () => {
    const error = await refusal('paper.docx', PDF_BYTES);
    expect(error.message).toContain(
      'its content is a PDF document, not a Word document (.docx) (Word documents are ZIP archives holding word/document.xml)',
    );
    expect(error.message).toContain('Upload it with the .pdf extension instead.');
  });

  it('a spreadsheet, a presentation or a plain ZIP named .docx, saying which', async () => {
    expect(
      (await refusal('sheet.docx', await zipOf({ '[Content_Types].xml': '<Types/>', 'xl/workbook.xml': '<workbook/>' }))).message,
    ).toContain('a ZIP archive holding an Excel workbook (.xlsx)');
    expect((await refusal('slides.docx', await zipOf({ 'ppt/presentation.xml': '<p/>' }))).message).toContain('PowerPoint presentation');
    const plain = await refusal('archive.docx', await zipOf({ 'readme.txt': 'hello', 'word/other.xml': '<x/>' }));
    expect(plain.details).toEqual({ reason: 'type_mismatch', found: 'a ZIP archive without word/document.xml, so not a Word document' });
  });

  it('a truncated ZIP named .docx, as damaged', async () => {
    expect((await refusal('cut.docx', docxBytes.subarray(0, docxBytes.length - 30))).message).toContain(
      'a damaged or incomplete ZIP archive',
    );
  });

  it('an old .doc file renamed .docx', async () => {
    expect((await refusal('old.docx', OLE_BYTES)).message).toContain('an older Microsoft Office file (such as a Word 97–2003 .doc)');
  });

  it('a PDF named .txt or .md, pointing at .pdf', async () => {
    const error = await refusal('paper.txt', PDF_BYTES);
    expect(error.details).toEqual({ reason: 'type_mismatch', found: 'a PDF document' });
    expect(error.message).toBe(
      'The file is named .txt but its content is a PDF document, not plain text. Upload it with the .pdf extension instead.',
    );
    expect((await refusal('paper.md', PDF_BYTES)).message).toContain('not Markdown text');
  });

  it('a PNG named .txt, and a Word document named .html', async () => {
    expect((await refusal('photo.txt', PNG_BYTES)).message).toBe('The file is named .txt but its content is a PNG image, not plain text.');
    expect((await refusal('essay.html', docxBytes)).message).toContain('Upload it with the .docx extension instead.');
  });

  it('unknown binary data named .txt, as binary (the files API’s NUL check)', async () => {
    const error = await refusal('data.txt', Uint8Array.from([0x41, 0x42, 0x00, 0x43]));
    expect(error.details).toEqual({ reason: 'binary_content', found: 'binary data' });
    expect(error.message).toBe('The file is named .txt but holds binary data (NUL bytes), not text.');
  });

  it('text that is not UTF-8, binary control characters, and HTML without markup (the files API’s checks)', async () => {
    expect((await refusal('latin1.txt', Uint8Array.from([0x63, 0x61, 0x66, 0xe9]))).details).toEqual({ reason: 'not_utf8' });
    expect((await refusal('bell.md', 'ring \u0007')).details).toEqual({ reason: 'control_characters' });
    expect((await refusal('page.html', 'no markup here')).details).toEqual({ reason: 'not_html' });
  });

  it('an empty file', async () => {
    expect((await refusal('empty.pdf', new Uint8Array(0))).details).toEqual({ reason: 'empty' });
    expect((await refusal('empty.txt', '')).details).toEqual({ reason: 'empty' });
  });

  it.each(['photo.png', 'old.doc', 'sheet.xlsx', 'data.json', 'README', 'x.'])(
    'an unsupported name, %s, listing what is accepted',
    async (fileName) => {
      const error = await refusal(fileName, 'text');
      expect(error.details).toEqual({ reason: 'unsupported_type' });
      expect(error.message).toContain('a knowledge base accepts .txt, .md, .markdown, .html, .htm, .pdf, .docx, .vtt, .srt files');
    },
  );
});

describe('detectUploadedDocumentType checks large text a slice at a time, with the same verdicts', () => {
  const MEGABYTE = 1024 * 1024;

  async function uploadRefusal(fileName: string, bytes: Uint8Array): Promise<AppError> {
    const error = await detectUploadedDocumentType({ fileName, bytes }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DocumentReadingError);
    // What clients see: the AppError the services make of it.
    const appError = asAppError(error);
    expect(appError).toBeInstanceOf(AppError);
    return appError as AppError;
  }

  it('lets other callbacks run while a 5 MB text is checked, and accepts it', async () => {
    let turns = 0;
    let counting = true;
    const count = (): void => {
      turns += 1;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const detected = await detectUploadedDocumentType({
      fileName: 'long.txt',
      bytes: encoder.encode('Rivers run to the sea. '.repeat(230_000)),
    });
    counting = false;
    expect(detected).toEqual({ type: 'txt', contentType: 'text/plain' });
    expect(turns).toBeGreaterThan(2);
  });

  it('accepts a character cut by a slice boundary, and finds HTML markup after the first slice', async () => {
    const text = 'a'.repeat(MEGABYTE - 1) + 'é and more';
    expect(await detectUploadedDocumentType({ fileName: 'accent.txt', bytes: encoder.encode(text) })).toEqual({
      type: 'txt',
      contentType: 'text/plain',
    });
    const html = ' '.repeat(2 * MEGABYTE) + '<p>late markup</p>';
    expect((await detectUploadedDocumentType({ fileName: 'late.html', bytes: encoder.encode(html) })).type).toBe('html');
  });

  it('refuses a NUL byte past the first slice as binary, and a PNG as a PNG, as detectDocumentType does', async () => {
    const bytes = encoder.encode('a'.repeat(3 * MEGABYTE));
    bytes[2 * MEGABYTE + 5] = 0;
    const error = await uploadRefusal('late.txt', bytes);
    expect(error.details).toEqual((await refusal('late.txt', bytes)).details);
    expect(error.details).toMatchObject({ reason: 'binary_content' });
    expect((await uploadRefusal('scan.pdf', PNG_BYTES)).message).toBe((await refusal('scan.pdf', PNG_BYTES)).message);
    expect((await uploadRefusal('latin1.md', Uint8Array.from([0x63, 0x61, 0x66, 0xe9]))).details).toMatchObject({ reason: 'not_utf8' });
  });
});

describe('readZipDirectory', () => {
  it('lists the entries of an archive without inflating them, and gives up on garbage', async () => {
    const bytes = await zipOf({ 'a.txt': 'aaaa'.repeat(100), 'dir/b.xml': '<b/>' });
    expect(await readZipDirectory(bytes)).toEqual([
      { name: 'a.txt', uncompressedSize: 400 },
      { name: 'dir/', uncompressedSize: 0 },
      { name: 'dir/b.xml', uncompressedSize: 4 },
    ]);
    expect(await readZipDirectory(encoder.encode('PK\u0003\u0004 not really a zip'))).toBeUndefined();
    expect(await readZipDirectory(new Uint8Array(0))).toBeUndefined();
  });

  it('refuses a directory of more than ZIP_DIRECTORY_ENTRIES_MAXIMUM entries, which would be read on the event loop', async () => {
    const many = (count: number) =>
      Object.fromEntries([...Array.from({ length: count - 1 }, (_, index) => [`word/p${index}.xml`, '']), ['word/document.xml', '<w/>']]);
    const atLimit = await zipOf(many(ZIP_DIRECTORY_ENTRIES_MAXIMUM - 1));
    // JSZip adds the folder entry "word/", so this archive lists exactly the limit.
    expect(await readZipDirectory(atLimit)).toHaveLength(ZIP_DIRECTORY_ENTRIES_MAXIMUM);
    expect((await detectDocumentType({ fileName: 'parts.docx', bytes: atLimit })).type).toBe('docx');
    const overLimit = await zipOf(many(ZIP_DIRECTORY_ENTRIES_MAXIMUM));
    expect(await readZipDirectory(overLimit)).toBeUndefined();
    expect((await refusal('parts.docx', overLimit)).message).toContain('more than 10,000 entries');
  });

  it('lists names a reader would refuse (a ".." path) without judging them, so the type is still told by the parts', async () => {
    const zip = new JSZip();
    zip.file('../outside.xml', '<x/>');
    zip.file('word/document.xml', '<w/>');
    const bytes = await zip.generateAsync({ type: 'uint8array' });
    expect((await readZipDirectory(bytes))?.map((entry) => entry.name)).toContain('../outside.xml');
    expect((await detectDocumentType({ fileName: 'odd.docx', bytes })).type).toBe('docx');
  });

  it('reads an archive with a comment after its directory', async () => {
    const zip = new JSZip();
    zip.file('word/document.xml', '<w/>');
    const bytes = await zip.generateAsync({ type: 'uint8array', comment: 'made by a test' });
    expect((await readZipDirectory(bytes))?.map((entry) => entry.name)).toEqual(['word/', 'word/document.xml']);
  });
});
