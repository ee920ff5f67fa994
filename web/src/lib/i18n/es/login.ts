// Spanish strings of the login page.
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
};
