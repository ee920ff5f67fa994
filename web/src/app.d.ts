// SvelteKit's ambient types: what the app keeps in a history entry's page state.
declare global {
  namespace App {
    interface PageState {
      /** Set when the page was opened right after creating what it shows, so it can say so. */
      created?: boolean;
    }
  }
}

export {};
