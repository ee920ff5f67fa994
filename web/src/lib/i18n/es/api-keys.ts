// Spanish strings of the API keys page (/settings/api-keys).
import type { CatalogueArea } from '../catalogue-types';
import type { apiKeys as english } from '../en/api-keys';

export const apiKeys: CatalogueArea<typeof english> = {
  title: 'Claves de API',
};
