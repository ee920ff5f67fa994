// Cadenas en español de las novedades del estudio: el panel Probar, las bases de conocimiento compartidas y los nombres sencillos.
import type { CatalogueArea } from '../catalogue-types';
import type { studio as english } from '../en/studio';

export const studio: CatalogueArea<typeof english> = {
  tryItTitle: 'Probar',
  tryItIntro: 'Conversa con el asistente guardado para ver cómo responde. Esta prueba no se guarda ni aparece entre tus chats.',
  tryItUnsaved: 'Tienes cambios sin guardar. Probar usa la versión guardada de este asistente hasta que guardes.',
  tryItClear: 'Borrar la prueba',
  tryItYou: 'Tú: ',
  sharedKnowledgeBases: 'Bases de conocimiento de este asistente',
  sharedKnowledgeBasesHint:
    'Marca una base de conocimiento una sola vez: todas las herramientas que buscan en bases de conocimiento la usan, salvo que elijas otras para una herramienta.',
  useShared: 'Usar las bases de conocimiento de este asistente',
  pickKnowledgeBase: 'Elige al menos una base de conocimiento',
  processor_simple_augment: 'Rellenar la plantilla con lo encontrado',
  processor_multi_augment: 'Cada herramienta rellena su propio marcador',
  processor_moodle_augment: 'Rellenar también el usuario de Moodle',
  tool_simple_rag: 'Fragmentos de la base de conocimiento',
  tool_no_rag: 'Sin fuente de conocimiento',
  step_orchestrator: 'Combinando lo que encontraron las herramientas',
};
