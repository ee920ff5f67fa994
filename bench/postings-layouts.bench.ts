/**
 * What the layout of full-text postings costs to write and to read as a knowledge base grows, on
 * better-sqlite3 alone (WAL, synchronous=NORMAL, temporary data in memory, a 64 MiB page cache, as
 * the store opens SQLite), for deciding how the index should be kept. Five layouts of the same
 * postings, each written in transactions of POSTINGS_LAYOUT_BATCH chunks (a Markdown file of that
 * many sections), terms in order within a transaction as `insertPostings` writes them:
 *
 * - rows by term: a row per posting keyed (knowledge base, term, chunk), as `kb_postings` is;
 * - blocks by term: a row per term per transaction, its postings packed (chunk, frequency, length)
 *   in one blob, keyed (knowledge base, term, first chunk);
 * - blocks by segment: the same blocks keyed (knowledge base, segment, term), a segment being one
 *   transaction's, so that every write appends; a term's list is then one read per segment;
 * - rows by segment: a row per posting keyed (knowledge base, segment, term, chunk), appending
 *   like the blocks while a deleted chunk's postings stay rows of their own;
 * - rows by segment, merged: the same, with POSTINGS_LAYOUT_MERGE_FACTOR segments of one tier merged
 *   into one of the next (in SQL, a transaction of its own) whenever a tier fills, as Lucene's log
 *   merge policy keeps the number of segments a read visits down.
 *
 * The postings are the DBpedia abstracts' (BEIR, 5,000), analysed as English, copied
 * POSTINGS_LAYOUT_COPIES times over with new chunk ids. Printed per layout and size: µs a chunk to
 * write, split into building the rows in JavaScript, running the statements, committing and
 * merging; the segments a read visits; ms a query to read the posting lists of the 50 BEIR
 * queries' terms (each query 5 times); and the file's size. It never passes or fails on a time.
 *
 *   npm run bench -- bench/postings-layouts.bench.ts   (POSTINGS_LAYOUT_BATCH=600 POSTINGS_LAYOUT_COPIES=1,3,6
 *   POSTINGS_LAYOUT_MERGE_FACTOR=10)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { textAnalyzer } from '../src/store/text-analysis.js';
import { readJsonLines, type BeirQuery, type CorpusDocument } from './support/beir-data.js';
import { printTable, wholeNumberSetting } from './support/measure.js';

const BATCH = wholeNumberSetting('POSTINGS_LAYOUT_BATCH', 600, 1);
const COPIES = (process.env.POSTINGS_LAYOUT_COPIES ?? '1,3,6').split(',').map((copies) => Math.max(1, Number(copies) || 1));
/** Rows per insert statement at most, as `row-batch-insert.ts` writes them on SQLite. */
const STATEMENT_ROWS_MAXIMUM = 256;
const READ_ROUNDS = 5;
const KNOWLEDGE_BASE = 1;

/** How many segments of one tier a merge folds into one of the next. */
const MERGE_FACTOR = wholeNumberSetting('POSTINGS_LAYOUT_MERGE_FACTOR', 10, 2);

type Layout = 'rows by term' | 'blocks by term' | 'blocks by segment' | 'rows by segment' | 'rows by segment, merged';
const LAYOUTS: readonly Layout[] = ['rows by term', 'blocks by term', 'blocks by segment', 'rows by segment', 'rows by segment, merged'];

interface AnalysedChunk {
  frequencies: Map<string, number>;
  length: number;
}

interface LayoutFigures {
  layout: Layout;
  chunks: number;
  rows: number;
  buildMicroseconds: number;
  statementMicroseconds: number;
  commitMicroseconds: number;
  mergeMicroseconds: number;
  /** The segments a read visits at the end (layouts keyed by segment). */
  segments: number;
  readMilliseconds: number;
  megabytes: number;
}

/** A segment a read visits, and its tier: how many merges made it. */
interface LiveSegment {
  id: number;
  tier: number;
}

/** How one layout lays a transaction's postings out, and reads a term's list back. */
interface LayoutShape {
  create: string;
  columns: number;
  /** The rows of one transaction, flat: `columns` values a row. */
  rowsOf(postingsByTerm: ReadonlyMap<string, number[]>, segment: number): unknown[];
  read(database: SqliteDatabase.Database, segments: readonly number[]): (term: string) => number;
  /** Whether full tiers of segments are merged after each write. */
  merged?: boolean;
}

/** A term's postings packed as (chunk int32, frequency float32, length float32) triples. */
function packed(postings: readonly number[]): Buffer {
  const count = postings.length / 3;
  const buffer = Buffer.allocUnsafe(count * 12);
  for (let index = 0; index < count; index += 1) {
    buffer.writeInt32LE(postings[index * 3]!, index * 12);
    buffer.writeFloatLE(postings[index * 3 + 1]!, index * 12 + 4);
    buffer.writeFloatLE(postings[index * 3 + 2]!, index * 12 + 8);
  }
  return buffer;
}

function inTermOrder(postingsByTerm: ReadonlyMap<string, number[]>): string[] {
  return [...postingsByTerm.keys()].sort();
}

function blockPostings(database: SqliteDatabase.Database, sql: string): (...values: unknown[]) => number {
  const statement = database.prepare(sql).raw(true);
  return (...values) => {
    let postings = 0;
    for (const [block] of statement.all(...values) as Buffer[][]) postings += block!.length / 12;
    return postings;
  };
}

const ROWS_BY_SEGMENT: LayoutShape = {
  create:
    'create table postings (kb integer not null, segment integer not null, term text not null, chunk integer not null, frequency real not null, length real not null, primary key (kb, segment, term, chunk)) without rowid',
  columns: 6,
  rowsOf: (postingsByTerm, segment) => {
    const values: unknown[] = [];
    for (const term of inTermOrder(postingsByTerm)) {
      const postings = postingsByTerm.get(term)!;
      for (let index = 0; index < postings.length; index += 3)
        values.push(KNOWLEDGE_BASE, segment, term, postings[index], postings[index + 1], postings[index + 2]);
    }
    return values;
  },
  read: (database, segments) => {
    const statement = database.prepare('select chunk, frequency, length from postings where kb = ? and segment = ? and term = ?').raw(true);
    return (term) => {
      let postings = 0;
      for (const segment of segments) postings += statement.all(KNOWLEDGE_BASE, segment, term).length;
      return postings;
    };
  },
};

const SHAPES: Record<Layout, LayoutShape> = {
  'rows by term': {
    create:
      'create table postings (kb integer not null, term text not null, chunk integer not null, frequency real not null, length real not null, primary key (kb, term, chunk)) without rowid',
    columns: 5,
    rowsOf: (postingsByTerm) => {
      const values: unknown[] = [];
      for (const term of inTermOrder(postingsByTerm)) {
        const postings = postingsByTerm.get(term)!;
        for (let index = 0; index < postings.length; index += 3)
          values.push(KNOWLEDGE_BASE, term, postings[index], postings[index + 1], postings[index + 2]);
      }
      return values;
    },
    read: (database) => {
      const statement = database.prepare('select chunk, frequency, length from postings where kb = ? and term = ?').raw(true);
      return (term) => statement.all(KNOWLEDGE_BASE, term).length;
    },
  },
  'blocks by term': {
    create:
      'create table postings (kb integer not null, term text not null, first integer not null, block blob not null, primary key (kb, term, first)) without rowid',
    columns: 4,
    rowsOf: (postingsByTerm) =>
      inTermOrder(postingsByTerm).flatMap((term) => {
        const postings = postingsByTerm.get(term)!;
        return [KNOWLEDGE_BASE, term, postings[0], packed(postings)];
      }),
    read: (database) => {
      const postingsOf = blockPostings(database, 'select block from postings where kb = ? and term = ?');
      return (term) => postingsOf(KNOWLEDGE_BASE, term);
    },
  },
  'blocks by segment': {
    create:
      'create table postings (kb integer not null, segment integer not null, term text not null, block blob not null, primary key (kb, segment, term)) without rowid',
    columns: 4,
    rowsOf: (postingsByTerm, segment) =>
      inTermOrder(postingsByTerm).flatMap((term) => [KNOWLEDGE_BASE, segment, term, packed(postingsByTerm.get(term)!)]),
    read: (database, segments) => {
      const postingsOf = blockPostings(database, 'select block from postings where kb = ? and segment = ? and term = ?');
      return (term) => {
        let postings = 0;
        for (const segment of segments) postings += postingsOf(KNOWLEDGE_BASE, segment, term);
        return postings;
      };
    },
  },
  'rows by segment': ROWS_BY_SEGMENT,
  'rows by segment, merged': { ...ROWS_BY_SEGMENT, merged: true },
};

/**
 * Merges MERGE_FACTOR segments of a tier into a new one of the next tier, as long as a tier is
 * full; answers the segments left. Each merge copies the rows in SQL and drops the originals, in
 * a transaction of its own.
 */
function mergeFullTiers(database: SqliteDatabase.Database, live: readonly LiveSegment[], nextSegment: () => number): LiveSegment[] {
  let segments = [...live];
  for (let tier = 0; ; tier += 1) {
    const full = segments.filter((segment) => segment.tier === tier);
    if (full.length < MERGE_FACTOR) return segments;
    const merged = nextSegment();
    const sources = full.map((segment) => segment.id).join(', ');
    database.transaction(() => {
      database
        .prepare(`insert into postings select kb, ?, term, chunk, frequency, length from postings where kb = ? and segment in (${sources})`)
        .run(merged, KNOWLEDGE_BASE);
      database.prepare(`delete from postings where kb = ? and segment in (${sources})`).run(KNOWLEDGE_BASE);
    })();
    segments = [...segments.filter((segment) => segment.tier !== tier), { id: merged, tier: tier + 1 }];
  }
}

function analyseCorpus(): AnalysedChunk[] {
  const analyzer = textAnalyzer('english');
  return readJsonLines<CorpusDocument>('corpus.jsonl').map((document) => {
    const terms = analyzer.terms(`${document.title}\n${document.text}`);
    const frequencies = new Map<string, number>();
    for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
    return { frequencies, length: terms.length };
  });
}

function openDatabase(file: string): SqliteDatabase.Database {
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  const database = new SqliteDatabase(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('temp_store = MEMORY');
  database.pragma('cache_size = -65536');
  return database;
}

function measure(layout: Layout, corpus: readonly AnalysedChunk[], copies: number, folder: string): LayoutFigures {
  const shape = SHAPES[layout];
  const file = path.join(folder, `${layout.replaceAll(' ', '-')}.sqlite`);
  const database = openDatabase(file);
  database.exec(shape.create);
  const statements = new Map<number, SqliteDatabase.Statement>();
  const insert = (rowCount: number): SqliteDatabase.Statement => {
    let statement = statements.get(rowCount);
    if (statement === undefined) {
      const row = `(${Array<string>(shape.columns).fill('?').join(', ')})`;
      statement = database.prepare(`insert into postings values ${Array<string>(rowCount).fill(row).join(', ')}`);
      statements.set(rowCount, statement);
    }
    return statement;
  };
  const figures: LayoutFigures = {
    layout,
    chunks: 0,
    rows: 0,
    buildMicroseconds: 0,
    statementMicroseconds: 0,
    commitMicroseconds: 0,
    mergeMicroseconds: 0,
    segments: 0,
    readMilliseconds: 0,
    megabytes: 0,
  };
  let segment = 0;
  let live: LiveSegment[] = [];
  for (let copy = 0; copy < copies; copy += 1) {
    for (let start = 0; start < corpus.length; start += BATCH) {
      let began = performance.now();
      segment += 1;
      const postingsByTerm = new Map<string, number[]>();
      for (const chunk of corpus.slice(start, start + BATCH)) {
        figures.chunks += 1;
        for (const [term, frequency] of chunk.frequencies) {
          const postings = postingsByTerm.get(term);
          if (postings === undefined) postingsByTerm.set(term, [figures.chunks, frequency, chunk.length]);
          else postings.push(figures.chunks, frequency, chunk.length);
        }
      }
      const values = shape.rowsOf(postingsByTerm, segment);
      figures.rows += values.length / shape.columns;
      figures.buildMicroseconds += (performance.now() - began) * 1000;
      began = performance.now();
      database.exec('begin');
      for (let offset = 0; offset < values.length;) {
        let rowCount = STATEMENT_ROWS_MAXIMUM;
        while (rowCount * shape.columns > values.length - offset) rowCount /= 4;
        insert(rowCount).run(values.slice(offset, offset + rowCount * shape.columns));
        offset += rowCount * shape.columns;
      }
      figures.statementMicroseconds += (performance.now() - began) * 1000;
      began = performance.now();
      database.exec('commit');
      figures.commitMicroseconds += (performance.now() - began) * 1000;
      live.push({ id: segment, tier: 0 });
      if (shape.merged === true) {
        began = performance.now();
        live = mergeFullTiers(database, live, () => (segment += 1));
        figures.mergeMicroseconds += (performance.now() - began) * 1000;
      }
    }
  }
  figures.segments = live.length;
  const analyzer = textAnalyzer('english');
  const queryTerms = readJsonLines<BeirQuery>('queries.jsonl').map((query) => [...new Set(analyzer.terms(query.text))]);
  const read = shape.read(
    database,
    live.map((entry) => entry.id),
  );
  const began = performance.now();
  let postingsRead = 0;
  for (let round = 0; round < READ_ROUNDS; round += 1) for (const terms of queryTerms) for (const term of terms) postingsRead += read(term);
  figures.readMilliseconds = (performance.now() - began) / (READ_ROUNDS * queryTerms.length);
  expect(postingsRead).toBeGreaterThan(0);
  database.close();
  figures.megabytes = fs.statSync(file).size / 1_048_576;
  return figures;
}

describe('postings layouts', () => {
  it('prints what each layout costs to write and read as a knowledge base grows', () => {
    const corpus = analyseCorpus();
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'merino-postings-layouts-'));
    try {
      const rows: string[][] = [];
      for (const copies of COPIES) {
        for (const layout of LAYOUTS) {
          const figures = measure(layout, corpus, copies, folder);
          const perChunk = (microseconds: number) => (microseconds / figures.chunks).toFixed(1);
          rows.push([
            layout,
            String(figures.chunks),
            String(figures.rows),
            perChunk(figures.buildMicroseconds + figures.statementMicroseconds + figures.commitMicroseconds + figures.mergeMicroseconds),
            perChunk(figures.buildMicroseconds),
            perChunk(figures.statementMicroseconds),
            perChunk(figures.commitMicroseconds),
            perChunk(figures.mergeMicroseconds),
            layout.includes('segment') ? String(figures.segments) : '',
            figures.readMilliseconds.toFixed(3),
            figures.megabytes.toFixed(1),
          ]);
        }
      }
      printTable(
        `Postings layouts on SQLite, ${BATCH} chunks a transaction, merges of ${MERGE_FACTOR} (write in µs a chunk, read in ms a query)`,
        [
          { label: 'layout', width: 23 },
          { label: 'chunks', width: 7 },
          { label: 'rows', width: 8 },
          { label: 'write', width: 7 },
          { label: 'build', width: 7 },
          { label: 'statements', width: 10 },
          { label: 'commit', width: 7 },
          { label: 'merge', width: 7 },
          { label: 'segments', width: 8 },
          { label: 'read', width: 7 },
          { label: 'MB', width: 6 },
        ],
        rows,
      );
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
