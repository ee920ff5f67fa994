/**
 * The foundation's acceptance walk (test/support/foundation-walk.ts), over real HTTP on both
 * stores: the admin logs in and creates a creator; the creator makes an API key and, with it, a
 * classic and a multi-tool assistant, shares, publishes, exports and re-imports them; a user
 * without access gets 404.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { foundationWalk } from './support/foundation-walk.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

describe.each(TEST_DIALECTS)('the foundation walk-through on %s', (dialect) => {
  let server: TestServer;
  let adminToken: string;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  const steps = foundationWalk(() => ({
    target: server,
    adminToken,
    createOrganization: (slug, name) => insertOrganization(server.store.db, slug, name),
  }));
  for (const step of steps) it(step.name, () => step.run());
});
