// Spanish strings of the fields classic and multi-tool forms share, the type choice and the edit page.
import type { CatalogueArea } from '../catalogue-types';
import type { assistantForm as english } from '../en/assistant-form';

export const assistantForm: CatalogueArea<typeof english> = {
  title: 'Nuevo asistente',
};
