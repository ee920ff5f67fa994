// Spanish strings of the assistant form's Model field.
import type { CatalogueArea } from '../catalogue-types';
import type { modelList as english } from '../en/model-list';

export const modelList: CatalogueArea<typeof english> = {
  hint: 'Agrupados por proveedor: los modelos que cada proveedor ofrece ahora, tal como los lista.',
  loading: 'Preguntando a los proveedores qué modelos ofrecen…',
  loadFailed: 'No se pudo cargar la lista de modelos. Recarga la página para intentarlo de nuevo.',
  defaultModel: '{{model}} (predeterminado)',
  notListed: '{{model}} (el proveedor no lo ofrece ahora)',
  unavailableOption: 'No disponible: {{reason}}',
  unavailable: '{{connector}} no está disponible: {{reason}}',
  reason_no_key: 'no hay ninguna clave de API para este proveedor.',
  reason_timeout: 'el proveedor no respondió a tiempo.',
  reason_key_rejected: 'el proveedor rechazó la clave de API.',
  reason_provider_error: 'el proveedor respondió con un error.',
  reason_malformed_answer: 'el proveedor respondió, pero no con una lista de modelos.',
  reason_unreachable: 'no se pudo contactar con el proveedor.',
  reason_address_refused: 'la dirección del proveedor está en una red interna, lo que no está permitido.',
};
