/** Builds the services every route uses from the store and settings: the seam between HTTP and the domain. */
import { ApiKeyService } from './auth/api-key-service.js';
import { Authenticator } from './auth/authenticator.js';
import { UserService } from './auth/user-service.js';
import { AssistantService } from './assistants/assistant-service.js';
import type { Settings } from './config/settings.js';
import type { Store } from './store/store.js';

export interface Services {
  settings: Settings;
  store: Store;
  authenticator: Authenticator;
  users: UserService;
  apiKeys: ApiKeyService;
  assistants: AssistantService;
}

export function createServices(store: Store, settings: Settings): Services {
  return {
    settings,
    store,
    authenticator: new Authenticator(store.db, settings.sessionTtlHours),
    users: new UserService(store.db, settings.passwordMinimumLength),
    apiKeys: new ApiKeyService(store.db),
    assistants: new AssistantService(store.db),
  };
}
