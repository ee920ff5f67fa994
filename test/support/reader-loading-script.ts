// Run by document-readers-load-only-when-a-document-needs-them.test.ts in a process of its own:
// reads a small text as a document worker thread does (extract, chunk, analyse in English), prints
// which readers' libraries are loaded, then reads a caption file, an archive and Spanish text and
// prints them again. CommonJS libraries show in the module cache once loaded.
import { createRequire } from 'node:module';
import { chunkSections } from '../../src/document-reading/chunking.js';
import { readZipDirectory, writeStoredZip } from '../../src/document-reading/bounded-zip.js';
import { extractDocument } from '../../src/document-reading/extraction.js';
import { analyseChunk, textAnalyzer } from '../../src/store/text-analysis.js';

const require = createRequire(import.meta.url);
const LIBRARIES = ['yauzl', 'subtitle', 'snowball-stemmers'] as const;

function loadedLibraries(): string[] {
  return LIBRARIES.filter((name) => require.resolve(name) in require.cache);
}

const text = await extractDocument({ fileName: 'notes.txt', bytes: Buffer.from('Photosynthesis turns light into sugar in the leaves.') });
for (const chunk of chunkSections(text.sections)) analyseChunk(textAnalyzer('english'), chunk.text, '{}');
const afterSmallText = loadedLibraries();

await extractDocument({
  fileName: 'lecture.vtt',
  bytes: Buffer.from('WEBVTT\n\n00:00:01.000 --> 00:00:04.000\nWelcome to the lecture.\n'),
});
await readZipDirectory(writeStoredZip([{ name: 'word/document.xml', bytes: Buffer.from('<w:document/>') }]));
analyseChunk(textAnalyzer('spanish'), 'Las hojas convierten la luz en azúcar.', '{}');
const afterOtherDocuments = loadedLibraries();

process.stdout.write(JSON.stringify({ afterSmallText, afterOtherDocuments }));
