// Proves the document worker's contract with real worker threads: text comes back chunked with the progress hook called once the text is extracted; extraction's own refusals cross the thread unchanged (code, message, details); a worker past its wall-clock budget or its heap cap fails with document_processing_failed naming that budget, and the thread is gone either way.
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { processDocumentInWorker, type DocumentTask } from './document-worker.js';

const encoder = new TextEncoder();
const ROOMY = { heapMegabytes: 256, residentMegabytes: 4096, timeoutMilliseconds: 60_000 };

function task(fileName: string, text: string | Uint8Array): DocumentTask {
  return {
    fileName,
    bytes: typeof text === 'string' ? encoder.encode(text) : text,
    limits: {},
    chunking: { chunkSize: 100, chunkOverlap: 0 },
  };
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a refusal');
}

describe('processDocumentInWorker', () => {
  it('extracts and chunks a document in a worker thread, calling onExtracted before the chunks arrive', async () => {
    const events: string[] = [];
    const sentence = 'Rivers carry sediment to the sea. ';
    const result = await processDocumentInWorker(task('rivers.txt', sentence.repeat(10)), ROOMY, {
      onExtracted: () => events.push('extracted'),
    });
    events.push('done');
    expect(events).toEqual(['extracted', 'done']);
    expect(result.chunks.length).toBeGreaterThan(1);
    expect(result.chunks.every((chunk) => chunk.text.length <= 100)).toBe(true);
    expect(result.chunks[0]!.text).toContain('Rivers carry sediment');
  });

  it('passes extraction refusals back unchanged', async () => {
    const error = await refusal(processDocumentInWorker(task('blank.txt', '   \n  '), ROOMY));
    expect(error.code).toBe('unreadable_document');
    expect(error.details).toEqual({ reason: 'no_text' });
    expect(error.param).toBe('file');
  });

  it('leaves the caller its buffer: the worker gets a copy', async () => {
    const bytes = encoder.encode('Deltas form where rivers meet the sea.');
    await processDocumentInWorker(task('deltas.txt', bytes), ROOMY);
    expect(bytes.byteLength).toBeGreaterThan(0);
    expect(new TextDecoder().decode(bytes)).toContain('Deltas');
  });

  it('stops a worker past its wall-clock budget, naming the budget', async () => {
    const stopped: string[] = [];
    const error = await refusal(
      processDocumentInWorker(
        task('slow.txt', 'Any text at all.'),
        { ...ROOMY, timeoutMilliseconds: 1 },
        { onStopped: (description) => stopped.push(description) },
      ),
    );
    expect(stopped).toEqual(['wall-clock budget of 1 ms exceeded']);
    expect(error.code).toBe('document_processing_failed');
    expect(error.details).toMatchObject({ reason: 'timeout', limit_ms: 1 });
    expect(error.message).toContain('took longer than');
  });

  it('stops a worker past its heap cap, naming the cap', async () => {
    // About 8 MB of text: normalizing, splitting and chunking it holds several copies at once.
    const words = 'granite basalt obsidian pumice\n'.repeat(280_000);
    const error = await refusal(processDocumentInWorker(task('huge.md', words), { ...ROOMY, heapMegabytes: 16 }));
    expect(error.code).toBe('document_processing_failed');
    expect(error.details).toMatchObject({ reason: 'out_of_memory', limit_mb: 16 });
    expect(error.message).toContain('16 MB');
    // The cap itself leaves room for a small document: it is the document that ran out.
    await expect(
      processDocumentInWorker(task('small.md', 'Granite is an igneous rock.'), { ...ROOMY, heapMegabytes: 16 }),
    ).resolves.toMatchObject({ chunks: [{ text: 'Granite is an igneous rock.' }] });
  });
});
