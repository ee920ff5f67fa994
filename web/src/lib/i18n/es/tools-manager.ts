// Spanish strings of the multi-tool form.
import type { CatalogueArea } from '../catalogue-types';
import type { toolsManager as english } from '../en/tools-manager';

export const toolsManager: CatalogueArea<typeof english> = {
  title: 'Tools:Herramientas',
};
