// Spanish strings of the fields classic and multi-tool forms share, the type choice and the edit page.
import type { CatalogueArea } from '../catalogue-types';
import type { assistantForm as english } from '../en/assistant-form';

export const assistantForm: CatalogueArea<typeof english> = {
  title: 'Nuevo asistente',
  pageTitle: 'Asistente',
  typeLegend: 'Tipo de asistente',
  typeClassic: 'Clásico',
  typeClassicSentence:
    'Responde a partir de una fuente que eliges: una base de conocimiento, un archivo o una rúbrica. Funciona como un asistente de LAMB.',
  typeMultiTool: 'Multiherramienta',
  typeMultiToolSentence:
    'Combina varias fuentes y herramientas: bases de conocimiento, archivos, rúbricas, el tiempo, otros asistentes y más.',
  chooseTypeFirst: 'Elige un tipo para empezar.',
  unsavedChanges: 'Cambios sin guardar',
  created: 'Creado y guardado',
  firstProblem: 'Ir al primer problema',
  leaveTitle: '¿Salir sin guardar?',
  leaveMessage: 'Los cambios de este asistente aún no están guardados. Si sales ahora, se pierden.',
  leaveConfirm: 'Salir sin guardar',
  name: 'Nombre',
  description: 'Descripción',
  systemPrompt: 'Prompt del sistema',
  systemPromptHint: 'Cómo debe comportarse el asistente; se envía antes de cada conversación.',
  promptTemplate: 'Plantilla del prompt',
  promptTemplateHint: 'El mensaje que recibe el modelo: {user_input} es la pregunta y {context} lo que encontró la recuperación.',
  modelLegend: 'Modelo y capacidades',
  model: 'Modelo',
  promptProcessor: 'Procesador del prompt',
  promptProcessorHint: 'Cómo se construye el prompt a partir de la plantilla y de lo que encontraron las herramientas.',
  vision: 'Visión',
  visionHint: 'El modelo puede leer las imágenes que se le envían.',
  imageGeneration: 'Generación de imágenes',
  imageGenerationHint:
    'Responde a cada pregunta con una imagen del proveedor de imágenes de su organización, guardada como archivo de quien pregunta.',
  verbose: 'Trazas detalladas',
  verboseHint: 'Registra cada paso de una petición (sin secretos) para encontrar problemas.',
  statusAsContent: 'Pasos de herramientas en el texto de la respuesta',
  statusAsContentHint:
    'Para clientes de chat que solo muestran la respuesta (Open WebUI, Moodle): cada paso de herramienta se escribe en el texto como una línea. El chat de Merino muestra los pasos aparte en cualquier caso.',
  catalogueFailed: 'No se pudieron cargar los modelos y las herramientas. Recarga la página para intentarlo de nuevo.',
  owner: 'Propietario',
  notSet: 'Sin definir',
  noDescription: 'Sin descripción.',
  published: 'Publicado',
  readOnly: 'Puedes usar este asistente, pero no modificarlo.',
  notFoundTitle: 'Asistente no encontrado',
  notFoundText: 'No hay ningún asistente en esta dirección, o no se ha compartido contigo.',
};
