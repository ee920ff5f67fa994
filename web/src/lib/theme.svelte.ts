/**
 * The colour theme: the system's unless the user picks light or dark, kept in a plain cookie
 * (a preference, not a credential) and applied as html[data-theme] (see app.css).
 */
export type Theme = 'system' | 'light' | 'dark';

function savedTheme(): Theme {
  if (typeof document === 'undefined') return 'system';
  const saved = /(?:^|;\s*)merino_theme=(light|dark)/.exec(document.cookie)?.[1];
  return saved === 'light' || saved === 'dark' ? saved : 'system';
}

const state = $state<{ theme: Theme }>({ theme: savedTheme() });

export function currentTheme(): Theme {
  return state.theme;
}

export function applyTheme(theme: Theme): void {
  state.theme = theme;
  if (theme === 'system') {
    delete document.documentElement.dataset['theme'];
    document.cookie = 'merino_theme=; path=/; max-age=0; SameSite=Lax';
  } else {
    document.documentElement.dataset['theme'] = theme;
    document.cookie = `merino_theme=${theme}; path=/; max-age=31536000; SameSite=Lax`;
  }
}
