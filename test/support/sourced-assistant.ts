/**
 * An assistant whose answers have knowledge-base sources worth grouping: one document with two
 * passages that match the question well (each under its own heading, on its own page), a second
 * document whose only passage matches it weakly (under the assistant's least similarity, set
 * between the two, as each store's full-text ranking scores them),
 * and a rubric the assistant grades with. It answers through the world's fake OpenAI provider.
 */
import { insertDocumentOfPassages } from './stored-documents.js';
import { request, type TestServer } from './test-server.js';

export const QUESTION = 'How does photosynthesis use light and the Calvin cycle?';

const STRONG_PASSAGES = [
  {
    heading: 'Light reactions',
    page: 2,
    text: 'Photosynthesis begins with the light reactions: chlorophyll absorbs light and photosynthesis splits water.',
  },
  {
    heading: 'Calvin cycle',
    page: 3,
    text: 'The Calvin cycle is the second stage of photosynthesis: it fixes carbon dioxide into sugar using light energy.',
  },
];
export const WEAK_PASSAGE =
  'Cell walls are made of cellulose. Vacuoles store water. Mitochondria release energy. Ribosomes build proteins. Plants also grow in the cycle of seasons, and this long passage is mostly about other things entirely.';

async function created(response: Promise<{ status: number; text: string; body: any }>, what: string): Promise<any> {
  const answer = await response;
  if (answer.status !== 201) throw new Error(`creating ${what} failed with ${answer.status}: ${answer.text}`);
  return answer.body;
}

/** A least similarity above the weak passage and below both strong ones, as this store ranks them. */
async function leastSimilarityBetween(server: TestServer, token: string, knowledgeBaseId: number): Promise<number> {
  const ranked = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBaseId}/query`, {
    token,
    body: { query_text: QUESTION, top_k: 10, threshold: 0 },
  });
  const similarities = (ranked.body.results as Array<{ similarity: number; data: string }>).map((hit) => ({
    weak: hit.data === WEAK_PASSAGE,
    similarity: hit.similarity,
  }));
  const weak = similarities.find((hit) => hit.weak)?.similarity ?? 0;
  const weakestStrong = Math.min(...similarities.filter((hit) => !hit.weak).map((hit) => hit.similarity));
  if (!(weakestStrong > weak)) throw new Error(`the strong passages do not rank above the weak one: ${JSON.stringify(similarities)}`);
  return (weak + weakestStrong) / 2;
}

/** The assistant's id and the least similarity its knowledge tool keeps. */
export interface SourcedAssistant {
  assistantId: number;
  leastSimilarity: number;
}

/** Creates the knowledge base, its documents, the rubric and the published assistant as `token`. */
export async function addSourcedAssistant(server: TestServer, token: string): Promise<SourcedAssistant> {
  const knowledgeBase = await created(
    request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Plants' } }),
    'a knowledge base',
  );
  const markdown = { contentType: 'text/markdown' };
  await insertDocumentOfPassages(server.store.db, knowledgeBase.id, {
    ...markdown,
    fileName: 'photosynthesis.md',
    passages: STRONG_PASSAGES,
  });
  await insertDocumentOfPassages(server.store.db, knowledgeBase.id, {
    ...markdown,
    fileName: 'cells.md',
    passages: [{ text: WEAK_PASSAGE }],
  });
  const leastSimilarity = await leastSimilarityBetween(server, token, knowledgeBase.id);
  const rubric = await created(
    request(server, 'POST', '/api/rubrics', {
      token,
      body: {
        rubricId: `lab-report-${knowledgeBase.id}`,
        title: 'Lab report rubric',
        description: 'Lab reports',
        metadata: {},
        criteria: [
          {
            name: 'Method',
            description: 'How it was done',
            weight: 1,
            levels: [
              { score: 2, label: 'Clear', description: 'The method is clear' },
              { score: 0, label: 'Missing', description: 'The method is missing' },
            ],
          },
        ],
        scoringType: 'points',
        maxScore: 2,
        visibility: 'private',
      },
    }),
    'a rubric',
  );
  const assistant = await created(
    request(server, 'POST', '/api/assistants', {
      token,
      body: {
        name: 'Plant tutor',
        system_prompt: 'You teach plant biology.',
        prompt_template: 'Notes: {context}\n\nRubric: {rubric}\n\nQuestion: {user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'openai',
          llm: 'gpt-4o-mini',
          tools: [
            {
              type: 'simple_rag',
              enabled: true,
              config: { collections: [String(knowledgeBase.id)], top_k: 5, threshold: leastSimilarity },
            },
            { type: 'rubric_rag', enabled: true, config: { rubric_id: rubric.rubricId } },
          ],
        },
      },
    }),
    'the assistant',
  );
  await request(server, 'PUT', `/api/assistants/${assistant.id}/publish`, { token, body: { published: true } });
  return { assistantId: assistant.id as number, leastSimilarity };
}
