// The web app builds to static files (web/build) that the Merino server serves at `/`. Every
// page renders in the browser (ssr is off in the root layout), so one fallback page, app.html,
// answers every app URL and the router takes over there.
import adapter from '@sveltejs/adapter-static';
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

/** @type {import('@sveltejs/kit').Config} */
const config = {
  preprocess: vitePreprocess(),
  kit: {
    adapter: adapter({ pages: 'build', assets: 'build', fallback: 'app.html', strict: true }),
    // The server's Content-Security-Policy allows only same-origin scripts; it adds the hash of
    // the fallback page's one inline start-up script (src/http/web-app.ts), so nothing else inline runs.
    output: { bundleStrategy: 'split' },
  },
};

export default config;
