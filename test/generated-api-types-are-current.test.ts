// Proves the web app's generated API types match the server's OpenAPI document: the committed
// web/src/lib/api/generated/openapi.ts is regenerated in memory and compared, so a route schema
// changed without `npm run generate:api` fails `npm test` (as Fastify checks its generated validator).
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { GENERATE_API_TYPES_COMMAND, GENERATED_API_TYPES_PATH, generatedApiTypes } from '../scripts/generate-api-types.js';

describe('the generated API types of the web app', () => {
  it('are what the server OpenAPI document generates today', async () => {
    const committed = await readFile(GENERATED_API_TYPES_PATH, 'utf8').catch(() => '');
    const current = await generatedApiTypes();
    if (committed !== current) {
      expect.fail(`${GENERATED_API_TYPES_PATH} is stale: run \`${GENERATE_API_TYPES_COMMAND}\` and commit the result.`);
    }
    expect(committed).toBe(current);
  }, 60_000);
});
