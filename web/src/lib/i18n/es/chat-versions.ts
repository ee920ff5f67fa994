// Spanish strings of answer versions, edited questions, ratings and Try again on the chat page.
import type { CatalogueArea } from '../catalogue-types';
import type { chatVersions as english } from '../en/chat-versions';

export const chatVersions: CatalogueArea<typeof english> = {
  previousVersion: 'Versión anterior',
  nextVersion: 'Versión siguiente',
  versionOf: 'Versión {{index}} de {{count}}',
  edit: 'Editar',
  editQuestion: 'Editar tu pregunta',
  editLabel: 'Tu pregunta',
  saveEdit: 'Guardar y enviar',
  cancelEdit: 'Cancelar',
  helpful: 'Útil',
  notHelpful: 'No es útil',
  commentLabel: '¿Qué se podría mejorar? (opcional)',
  sendComment: 'Enviar comentario',
  thanks: 'Gracias por tu comentario.',
  ratingFailed: 'No se pudo guardar tu comentario: {{message}}',
  versionFailed: 'No se pudo mostrar esa versión: {{message}}',
  tryAgain: 'Reintentar',
};
