/** The ingestion runner's bounds as the server's settings give them (README settings table; docs/knowledge-bases.md). */
import type { Settings } from '../config/settings.js';
import type { GraphStageOptions } from './entity-graph-stage.js';
import type { IngestionRunnerOptions } from './ingestion-runner.js';

type BoundOptions = Pick<
  IngestionRunnerOptions,
  'pollMilliseconds' | 'leaseMilliseconds' | 'attemptsMaximum' | 'embeddingBatchSize' | 'documentProcessing' | 'concurrency'
>;

export function ingestionRunnerBoundsOf(settings: Settings): BoundOptions {
  return {
    pollMilliseconds: settings.ingestionPollMilliseconds,
    leaseMilliseconds: settings.ingestionLeaseMilliseconds,
    attemptsMaximum: settings.ingestionAttemptsMaximum,
    embeddingBatchSize: settings.embeddingBatchSize,
    documentProcessing: {
      budget: {
        heapMegabytes: settings.ingestionWorkerHeapMegabytes,
        residentMegabytes: settings.ingestionWorkerResidentMegabytes,
        timeoutMilliseconds: settings.ingestionWorkerTimeoutMilliseconds,
      },
      limits: {
        maximumChunks: settings.ingestionChunksMaximum,
        maximumZipPartBytes: settings.ingestionZipPartBytesMaximum,
        maximumZipTotalBytes: settings.ingestionZipTotalBytesMaximum,
        maximumPdfInflatedBytes: settings.ingestionPdfInflatedBytesMaximum,
      },
    },
    concurrency: {
      jobsInFlightMaximum: settings.ingestionJobsInFlightMaximum,
      claimBatchMaximum: settings.ingestionClaimBatchMaximum,
      textClaimBatchMaximum: settings.ingestionTextClaimBatchMaximum,
      bytesInFlightMaximum: settings.ingestionBytesInFlightMaximum,
      workerThreads: settings.ingestionWorkerThreads,
      documentsPerThreadMaximum: settings.ingestionWorkerDocumentsMaximum,
      batchMaximum: settings.ingestionWorkerBatchMaximum,
    },
  };
}

/** The entity-graph stage with its GRAPH_* bounds, reaching the small fast model through `modelFor`. */
export function graphStageOf(settings: Settings, modelFor: GraphStageOptions['modelFor']): GraphStageOptions {
  return {
    modelFor,
    bounds: {
      entitiesPerChunk: settings.graphEntitiesPerChunkMaximum,
      relationsPerChunk: settings.graphRelationsPerChunkMaximum,
      nameCharacters: settings.graphEntityNameCharactersMaximum,
      answerTokens: settings.graphExtractionTokensMaximum,
    },
    parallelChunks: settings.graphExtractionParallelChunks,
  };
}
