// English strings of the login page.
export const login = {
  title: 'Log in to Merino',
  email: 'Email',
  password: 'Password',
  submit: 'Log in',
  submitting: 'Logging in…',
  failed: 'The email or password is not right.',
  tooMany: 'Too many attempts. Wait a moment and try again.',
} as const;
