// SvelteKit's ambient types; the app declares nothing of its own here.
declare global {
  namespace App {}
}

export {};
