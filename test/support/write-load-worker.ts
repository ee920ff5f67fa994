/**
 * A child process for the crash test: opens the store named by its environment and performs
 * multi-row writes through the real services until it is killed. Prints "ready" once the first
 * write has committed so the parent knows the kill lands mid-stream.
 */
import { identityOf } from '../../src/auth/authenticator.js';
import { loadSettings } from '../../src/config/settings.js';
import { loadRegistries } from '../../src/pipeline/plugin-loading/registries.js';
import { createServices } from '../../src/services.js';
import { openStore } from '../../src/store/store.js';
import { findUserByEmail } from '../../src/store/users-repository.js';

const settings = loadSettings();
const store = await openStore({ databaseUrl: settings.databaseUrl, dataDirectory: settings.dataDirectory, poolSize: 4 });
const services = createServices(store, settings, await loadRegistries({ info: () => undefined, error: () => undefined }));
const admin = await findUserByEmail(store.db, process.env.WORKER_ADMIN_EMAIL ?? '');
if (!admin) throw new Error('the parent must create the admin first');
const context = { identity: identityOf(admin, 'session', 0), requestId: null };
const shareSets = [
  JSON.parse(process.env.WORKER_SHARE_SET_A ?? '[]') as string[],
  JSON.parse(process.env.WORKER_SHARE_SET_B ?? '[]') as string[],
];

let round = 0;
for (;;) {
  const assistant = await services.assistants.create(context, {
    name: `load ${round}`,
    metadata: { assistant_type: 'multi_tool', tools: ['no_rag'] },
    rag_collections: ['kb-1', 'kb-2'],
  });
  await services.assistantSharing.putShares(context, assistant.id, shareSets[round % 2] ?? []);
  if (round === 0) process.stdout.write('ready\n');
  round += 1;
}
