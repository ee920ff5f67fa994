// Spanish strings of the sharing and publishing panel.
import type { CatalogueArea } from '../catalogue-types';
import type { sharing as english } from '../en/sharing';

export const sharing: CatalogueArea<typeof english> = {
  title: 'Compartir',
};
