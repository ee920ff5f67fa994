// Spanish words for the server's stable error codes (docs/errors.md).
import type { CatalogueArea } from '../catalogue-types';
import type { serverErrors as english } from '../en/server-errors';

export const serverErrors: CatalogueArea<typeof english> = {
  upstream_error: 'El modelo no respondió. Vuelve a intentarlo en un momento.',
  upstream_timeout: 'El modelo tardó demasiado en responder.',
  upstream_rate_limited: 'El modelo está ocupado ahora mismo. Vuelve a intentarlo en un momento.',
  upstream_rejected: 'El modelo no pudo aceptar esta petición.',
  upstream_refused: 'No se pudo contactar con el modelo.',
  rate_limited: 'Has enviado muchos mensajes en poco tiempo. Espera un poco.',
  chat_full: 'Este chat está lleno. Empieza un chat nuevo para continuar.',
  nothing_to_regenerate: 'No hay ninguna pregunta que responder de nuevo.',
  not_found: 'No se encontró, o no tienes permiso para verlo.',
  server_shutting_down: 'El servidor se está reiniciando. Vuelve a intentarlo en un momento.',
  internal_error: 'Algo falló en el servidor.',
  stream_ended: 'La respuesta terminó antes de tiempo.',
  network: 'No se pudo contactar con el servidor. Comprueba tu conexión.',
};
