// Spanish strings of the signed source-link page (/sources/{token}).
import type { CatalogueArea } from '../catalogue-types';
import type { sourceLinks as english } from '../en/source-links';

export const sourceLinks: CatalogueArea<typeof english> = {
  pageTitle: 'Fragmento citado',
  loading: 'Abriendo el fragmento…',
  fromKnowledgeBase: 'De la base de conocimiento {{name}}',
  citedPassage: 'El fragmento citado',
  passageOf: 'Fragmento {{number}} de {{count}}',
  section: 'Sección: {{section}}',
  page: 'Página {{page}}',
  linkNote:
    'Este enlace abre solo este fragmento, para la persona a quien iba la respuesta y para quienes pueden leer la base de conocimiento.',
  expiredTitle: 'Este enlace ha caducado',
  expired: 'Los enlaces a fuentes duran un tiempo limitado. Vuelve a hacer la pregunta para obtener uno nuevo.',
  invalidTitle: 'Esto no es un enlace a una fuente',
  invalid: 'La dirección está incompleta o se ha cambiado. Vuelve a abrir el enlace desde la respuesta de la que viene.',
  refusedTitle: 'Este enlace no se abre',
  refused: 'Se ha alterado, o la persona para quien se hizo ya no puede leer este fragmento.',
  refusedSignedIn:
    'No se abre para {{name}}: no puedes leer esta base de conocimiento, o el enlace se ha alterado. Un enlace a una fuente se abre para la persona a quien iba la respuesta y para quienes pueden leer la base de conocimiento.',
  failed: 'No se ha podido abrir el fragmento: {{message}}',
};
