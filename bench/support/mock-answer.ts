/**
 * What the gateway comparison's mock provider answers and checks, shared by the mock process
 * (mock-openai-server.ts) and the benchmark that verifies every answer arrived whole.
 */
export const MOCK_DELTAS = 64;
export const MOCK_DELTA_INTERVAL_MS = 20;
/** Put in the multi-tool assistant's system prompt; the markers below must then reach the prompt too. */
export const MULTI_TOOL_MARKER = 'MULTI-TOOL-ASSISTANT';
export const FILE_MARKER = 'FILE-MARKER-7f3a';
export const KNOWLEDGE_MARKER = 'KB-PASSAGE-';
export const MOCK_MODEL = 'gpt-4o-mini';

/** The deltas' text: `t0 t1 … t63 `, so a client can tell which delta it lost. */
export const MOCK_PIECES: readonly string[] = Array.from({ length: MOCK_DELTAS }, (_, index) => `t${index} `);
export const MOCK_ANSWER = MOCK_PIECES.join('');
