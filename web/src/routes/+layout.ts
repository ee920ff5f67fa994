// Every page renders in the browser: the server serves one static fallback page for all of them.
export const ssr = false;
export const prerender = false;
export const trailingSlash = 'never';
