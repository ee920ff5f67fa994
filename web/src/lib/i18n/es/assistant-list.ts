// Spanish strings of the assistant list page (/assistants).
import type { CatalogueArea } from '../catalogue-types';
import type { assistantList as english } from '../en/assistant-list';

export const assistantList: CatalogueArea<typeof english> = {
  title: 'Asistentes',
};
