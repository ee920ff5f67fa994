/**
 * The entity-graph stage of ingestion (docs/graph-search.md), run for knowledge bases with
 * `graph.enabled` after a document's chunks are made and before they are stored: the
 * organization's small fast model reads each chunk's entities and relations, a few chunks at once.
 * A chunk whose answer cannot be used (not the asked JSON, refused by the provider) adds nothing
 * and is counted; a model that cannot be used at all (unreachable, failing, not set) ends the
 * stage with that reason and no graph for the document. Either way the document's text is indexed
 * and searchable: the stage's outcome is written into the job's message, never its failure.
 */
import { isAppError } from '../errors/app-error.js';
import type { TextModel } from '../pipeline/plugin-contract/ports.js';
import type { ChunkGraph } from '../store/entity-graph-repository.js';
import { ChunkExtractionError, extractChunkGraph, type ExtractedGraph, type GraphExtractionBounds } from './entity-graph-extraction.js';

export interface GraphStageOptions {
  /** The organization's small fast model, its calls counted to `userId`; undefined when the organization names none. */
  modelFor(organizationId: number, userId: number): Promise<TextModel | undefined>;
  bounds: GraphExtractionBounds;
  /** Chunks read at once (GRAPH_EXTRACTION_PARALLEL_CHUNKS). */
  parallelChunks: number;
}

export interface DocumentGraphRequest {
  organizationId: number;
  userId: number;
  texts: readonly string[];
  /** Records that `done` chunks are read; rejects when the job is no longer ours, which stops the stage. */
  progress(done: number): Promise<void>;
}

export interface DocumentGraph {
  /** What each chunk adds, by its position; undefined for a chunk that failed or when the stage did. */
  perChunk: Array<ExtractedGraph | undefined>;
  /** One sentence for the job's message. */
  summary: string;
}

/** A failure that says the model cannot be used at all, rather than that one answer was bad. */
function stopsTheStage(error: unknown): boolean {
  if (error instanceof ChunkExtractionError) return false;
  return !isAppError(error) || error.code === 'upstream_error';
}

function reasonOf(error: unknown): string {
  return isAppError(error) ? error.message : 'the small fast model could not be called.';
}

/** The chunks' graphs paired with their stored ids, leaving out chunks that add nothing. */
export function chunkGraphsOf(graph: DocumentGraph, chunkIds: readonly number[]): ChunkGraph[] {
  return chunkIds.flatMap((chunkId, index) => {
    const extracted = graph.perChunk[index];
    return extracted === undefined || extracted.entities.length === 0 ? [] : [{ chunkId, ...extracted }];
  });
}

export async function extractDocumentGraph(options: GraphStageOptions, request: DocumentGraphRequest): Promise<DocumentGraph> {
  const { texts } = request;
  const perChunk: Array<ExtractedGraph | undefined> = texts.map(() => undefined);
  const model = await options.modelFor(request.organizationId, request.userId);
  if (model === undefined)
    return { perChunk, summary: 'Entity graph not built: the organization names no small fast model; an admin can choose one.' };
  const controller = new AbortController();
  let stageFailure: unknown;
  let failedChunks = 0;
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < texts.length && stageFailure === undefined) {
      const index = next;
      next += 1;
      try {
        perChunk[index] = await extractChunkGraph(model, texts[index]!, { bounds: options.bounds, signal: controller.signal });
      } catch (error) {
        if (stopsTheStage(error)) {
          stageFailure ??= error;
          controller.abort();
          return;
        }
        failedChunks += 1;
      }
      done += 1;
      await request.progress(done);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(options.parallelChunks, texts.length) }, worker));
  } finally {
    controller.abort();
  }
  if (stageFailure !== undefined)
    return { perChunk: texts.map(() => undefined), summary: `Entity graph not built: ${model.name} failed: ${reasonOf(stageFailure)}` };
  const entities = new Set(perChunk.flatMap((graph) => graph?.entities.map((entity) => entity.normalizedName) ?? [])).size;
  const relations = perChunk.reduce((sum, graph) => sum + (graph?.relations.length ?? 0), 0);
  const failed = failedChunks === 0 ? '' : ` ${failedChunks} of ${texts.length} chunks could not be read and add nothing.`;
  return { perChunk, summary: `Entity graph: ${entities} entities and ${relations} relations.${failed}` };
}
