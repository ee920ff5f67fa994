// Spanish strings of the login page and of the sign-up page it links to.
import type { CatalogueArea } from '../catalogue-types';
import type { login as english } from '../en/login';

export const login: CatalogueArea<typeof english> = {
  title: 'Iniciar sesión en Merino',
  email: 'Correo electrónico',
  password: 'Contraseña',
  submit: 'Entrar',
  submitting: 'Entrando…',
  failed: 'El correo o la contraseña no son correctos.',
  tooMany: 'Demasiados intentos. Espera un momento y vuelve a intentarlo.',
  signUpPrompt: '¿Tienes una clave de registro?',
  signUpLink: 'Regístrate',
  signUpTitle: 'Registrarse en Merino',
  signUpIntro: 'Tu docente o tu administrador te da una clave de registro. Decide a qué organización pertenece tu cuenta.',
  name: 'Nombre',
  signUpKey: 'Clave de registro',
  signUpKeyHint: 'Por ejemplo ABCD-EFGH-JKMN-PQRS-TVWX. Mayúsculas, espacios y guiones no importan.',
  signUpSubmit: 'Registrarse',
  signUpSubmitting: 'Registrando…',
  signUpRefused:
    'No hemos podido registrarte: la clave de registro no es válida o este correo no se puede usar. Si ya tienes una cuenta, inicia sesión.',
  signUpDomain: 'Esta clave de registro es solo para direcciones de correo de {{domain}}.',
  signUpSuspended: 'Esta organización está suspendida, así que ahora nadie puede registrarse en ella.',
  signUpFailed: 'El registro no ha funcionado. Revisa los campos y vuelve a intentarlo.',
  logInPrompt: '¿Ya tienes una cuenta?',
  logInLink: 'Inicia sesión',
};
