// Spanish strings of exporting and importing assistants.
import type { CatalogueArea } from '../catalogue-types';
import type { importExport as english } from '../en/import-export';

export const importExport: CatalogueArea<typeof english> = {
  title: 'Importar',
};
