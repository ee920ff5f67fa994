// Proves the PDF stream budget on files built here: a Flate bomb is refused once its inflated bytes pass the budget, however the file hides where the stream ends (an `endstream` inside the compressed bytes, none at all); several streams count against one budget; a two-layer chain counts both layers; images are not inflated; ordinary PDFs and files full of `stream` keywords pass, the latter without inflating anything.
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { asAppError } from '../ingestion/reading-refusals.js';
import { DocumentReadingError } from './document-reading-error.js';
import { pdfFlateBomb } from '../../test/support/hostile-documents.js';
import { buildPdf } from '../../test/support/pdf-fixture.js';
import { requirePdfStreamsWithinBudget } from './pdf-stream-budget.js';

const MEGABYTE = 1024 * 1024;
const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1');

/** A file body of objects whose streams hold `payloads`, each Flate-compressed `layers` times. */
function pdfWithStreams(
  payloads: ReadonlyArray<{ data: Buffer; layers?: number; image?: boolean; trailingEndstreamInside?: boolean }>,
): Buffer {
  const parts: Buffer[] = [latin1('%PDF-1.4\n')];
  payloads.forEach((payload, index) => {
    let data = payload.data;
    const layers = payload.layers ?? 1;
    for (let layer = 0; layer < layers; layer += 1) data = zlib.deflateSync(data);
    const filters = layers === 1 ? '/FlateDecode' : `[${Array.from({ length: layers }, () => '/FlateDecode').join(' ')}]`;
    const image = payload.image ? '/Subtype /Image /Width 1 /Height 1 ' : '';
    parts.push(
      latin1(`${index + 1} 0 obj\n<< ${image}/Length ${data.length} /Filter ${filters} >>\nstream\n`),
      data,
      latin1('\nendstream\nendobj\n'),
    );
  });
  return Buffer.concat(parts);
}

async function refusal(bytes: Uint8Array, budget: number): Promise<AppError> {
  const error = await requirePdfStreamsWithinBudget(bytes, budget).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(DocumentReadingError);
  // What clients see: the AppError the services make of it.
  const appError = asAppError(error);
  expect(appError).toBeInstanceOf(AppError);
  return appError as AppError;
}

describe('requirePdfStreamsWithinBudget', () => {
  it('refuses a Flate bomb past the budget and accepts it within', async () => {
    const bomb = await pdfFlateBomb(4 * MEGABYTE);
    const error = await refusal(bomb, MEGABYTE);
    expect(error.code).toBe('document_too_large');
    expect(error.details).toEqual({ reason: 'too_much_compressed_content', limit: MEGABYTE });
    expect(error.message).toContain('1,048,576 bytes');
    await expect(requirePdfStreamsWithinBudget(bomb, 8 * MEGABYTE)).resolves.toBeUndefined();
  });

  it('passes ordinary PDFs', async () => {
    await expect(requirePdfStreamsWithinBudget(buildPdf([{ lines: ['One page of text.'] }, {}]), 1024)).resolves.toBeUndefined();
  });

  it('counts every stream against one budget', async () => {
    const streams = Array.from({ length: 4 }, () => ({ data: Buffer.alloc(300_000, 0x20) }));
    expect((await refusal(pdfWithStreams(streams), MEGABYTE)).code).toBe('document_too_large');
    await expect(requirePdfStreamsWithinBudget(pdfWithStreams(streams.slice(0, 3)), MEGABYTE)).resolves.toBeUndefined();
  });

  it('counts both layers of a two-layer chain, and refuses longer chains', async () => {
    expect((await refusal(pdfWithStreams([{ data: Buffer.alloc(2 * MEGABYTE, 0x20), layers: 2 }]), MEGABYTE)).code).toBe(
      'document_too_large',
    );
    expect((await refusal(pdfWithStreams([{ data: latin1('tiny'), layers: 3 }]), MEGABYTE)).code).toBe('document_too_large');
  });

  it('does not stop at an `endstream` hidden inside the compressed bytes', async () => {
    // A stored (uncompressed) deflate block can carry any bytes, "endstream" included, before the bomb.
    const decoy = Buffer.concat([latin1('\nendstream\nendobj\n'), Buffer.alloc(3 * MEGABYTE, 0x20)]);
    const compressed = zlib.deflateSync(decoy, { level: 0 });
    expect(compressed.includes(latin1('endstream'))).toBe(true);
    const file = Buffer.concat([
      latin1(`%PDF-1.4\n1 0 obj\n<< /Length ${compressed.length} /Filter /FlateDecode >>\nstream\n`),
      compressed,
      latin1('\nendstream\nendobj\n'),
    ]);
    expect((await refusal(file, MEGABYTE)).code).toBe('document_too_large');
  });

  it('measures a stream with no `endstream` at all', async () => {
    const compressed = zlib.deflateSync(Buffer.alloc(2 * MEGABYTE, 0x20));
    const file = Buffer.concat([latin1('%PDF-1.4\n1 0 obj\n<< /Filter /FlateDecode >>\nstream\n'), compressed]);
    expect((await refusal(file, MEGABYTE)).code).toBe('document_too_large');
  });

  it('leaves images to the worker budgets: their streams are not inflated here', async () => {
    await expect(
      requirePdfStreamsWithinBudget(pdfWithStreams([{ data: Buffer.alloc(2 * MEGABYTE, 0), image: true }]), MEGABYTE),
    ).resolves.toBeUndefined();
  });

  it('passes a file of 200,000 fake `stream` keywords, whose bytes are not zlib streams', async () => {
    const file = latin1('%PDF-1.4\n' + '<< /Filter /FlateDecode >>\nstream\n'.repeat(200_000));
    await expect(requirePdfStreamsWithinBudget(file, MEGABYTE)).resolves.toBeUndefined();
  });
});
