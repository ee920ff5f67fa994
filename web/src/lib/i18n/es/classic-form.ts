// Spanish strings of the classic assistant form and the conversion to multi-tool.
import type { CatalogueArea } from '../catalogue-types';
import type { classicForm as english } from '../en/classic-form';

export const classicForm: CatalogueArea<typeof english> = {
  title: 'Clásico',
};
