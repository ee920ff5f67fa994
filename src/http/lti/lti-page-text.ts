/**
 * The words of the server's own LTI pages (a refused launch, an activity not set up yet, the
 * teacher's set-up, assistant picker and dashboard), in English and Spanish. These pages are
 * served by the server, not the web app, so that they work inside any LMS frame from the launch
 * itself; their strings live here, beside them, with the same two languages the app offers.
 */
export type PageLocale = 'en' | 'es';

const ENGLISH = {
  refusedTitle: 'This launch could not be accepted',
  refusedHint: 'Nothing was changed. If this keeps happening, tell your teacher or your administrator.',
  signingInTitle: 'Signing you in',
  storingBody: 'Connecting to your course…',
  continueLink: 'Continue',
  checkingBody: 'Checking this sign-in with your course…',
  checkFailed: 'Your course could not confirm this sign-in. Go back to your course and open the activity again.',
  notSetUpTitle: 'Not ready yet',
  notSetUpBody: 'Your teacher has not set this activity up yet. Please try again later.',
  setUpTitle: 'Set up this activity',
  setUpBody: 'Choose the assistant your students will chat with when they open this activity.',
  assistantLabel: 'Assistant',
  useAssistant: 'Use this assistant',
  noAssistants: 'You have no assistants you can use here yet. Create one in Merino, or ask for one to be shared with you.',
  boundTitle: 'Activity set up',
  boundBody: 'Students who open this activity now chat with the assistant you chose.',
  openChat: 'Open the chat',
  openDashboard: 'Open the activity dashboard',
  pickerTitle: 'Add an assistant to your course',
  pickerBody: 'Choose the assistant this new activity opens.',
  addToCourse: 'Add to course',
  returningTitle: 'Returning to your course',
  returnToCourse: 'Return to course',
  dashboardTitle: 'Activity dashboard',
  learnersHeading: 'Learners who opened it',
  noLearners: 'No learner has opened this activity yet.',
  learnerColumn: 'Learner',
  launchesColumn: 'Visits',
  lastVisitColumn: 'Last visit',
  usageHeading: 'Usage',
  requests: 'Chat requests',
  promptTokens: 'Prompt tokens',
  completionTokens: 'Answer tokens',
  assistantHeading: 'Assistant',
  noAssistantBound: 'No assistant is set for this activity yet.',
  chats: 'Chats',
  messages: 'Messages',
  chatsHeading: "Learners' chats",
  chatsNotShown: "Learners' chats are shown here to whoever manages the assistant, when the organization allows it.",
  noChats: 'No chat to show yet.',
  chatSummary: '{learner}: {title} ({count} messages)',
  untitledChat: 'Untitled',
  questionLabel: 'Learner',
  answerLabel: 'Assistant',
} as const;

export type PageText = Record<keyof typeof ENGLISH, string>;

const SPANISH: PageText = {
  refusedTitle: 'No se ha podido aceptar este acceso',
  refusedHint: 'No se ha cambiado nada. Si vuelve a ocurrir, avisa a tu docente o a quien administre Merino.',
  signingInTitle: 'Iniciando sesión',
  storingBody: 'Conectando con tu curso…',
  continueLink: 'Continuar',
  checkingBody: 'Comprobando este acceso con tu curso…',
  checkFailed: 'Tu curso no ha podido confirmar este acceso. Vuelve a tu curso y abre la actividad de nuevo.',
  notSetUpTitle: 'Todavía no está listo',
  notSetUpBody: 'Tu docente aún no ha configurado esta actividad. Vuelve a intentarlo más tarde.',
  setUpTitle: 'Configura esta actividad',
  setUpBody: 'Elige el asistente con el que conversará tu alumnado al abrir esta actividad.',
  assistantLabel: 'Asistente',
  useAssistant: 'Usar este asistente',
  noAssistants: 'Todavía no tienes asistentes que puedas usar aquí. Crea uno en Merino o pide que te compartan alguno.',
  boundTitle: 'Actividad configurada',
  boundBody: 'Quien abra esta actividad conversará ahora con el asistente que has elegido.',
  openChat: 'Abrir el chat',
  openDashboard: 'Abrir el panel de la actividad',
  pickerTitle: 'Añade un asistente a tu curso',
  pickerBody: 'Elige el asistente que abrirá esta nueva actividad.',
  addToCourse: 'Añadir al curso',
  returningTitle: 'Volviendo a tu curso',
  returnToCourse: 'Volver al curso',
  dashboardTitle: 'Panel de la actividad',
  learnersHeading: 'Estudiantes que la han abierto',
  noLearners: 'Nadie ha abierto esta actividad todavía.',
  learnerColumn: 'Estudiante',
  launchesColumn: 'Visitas',
  lastVisitColumn: 'Última visita',
  usageHeading: 'Uso',
  requests: 'Peticiones de chat',
  promptTokens: 'Tokens de entrada',
  completionTokens: 'Tokens de respuesta',
  assistantHeading: 'Asistente',
  noAssistantBound: 'Esta actividad aún no tiene asistente.',
  chats: 'Chats',
  messages: 'Mensajes',
  chatsHeading: 'Chats del alumnado',
  chatsNotShown: 'Los chats del alumnado se muestran aquí a quien gestiona el asistente, cuando la organización lo permite.',
  noChats: 'Todavía no hay chats que mostrar.',
  chatSummary: '{learner}: {title} ({count} mensajes)',
  untitledChat: 'Sin título',
  questionLabel: 'Alumno/a',
  answerLabel: 'Asistente',
};

export function pageText(locale: PageLocale): PageText {
  return locale === 'es' ? SPANISH : ENGLISH;
}

/** Spanish when the `merino_locale` cookie or, without it, the browser's first language says so; English otherwise. */
export function pageLocale(cookieHeader: string | undefined, acceptLanguage: string | undefined): PageLocale {
  for (const pair of (cookieHeader ?? '').split(';')) {
    const [name, value] = pair.split('=').map((part) => part.trim());
    if (name === 'merino_locale') return value === 'es' ? 'es' : 'en';
  }
  return (acceptLanguage ?? '').trim().toLowerCase().startsWith('es') ? 'es' : 'en';
}
