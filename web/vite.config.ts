// Vite builds the web app; in development (`npm run dev:web`) it forwards the API to a Merino
// server on MERINO_API_URL (default http://127.0.0.1:8080), so the cookie stays same-origin.
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';

const apiUrl = process.env['MERINO_API_URL'] ?? 'http://127.0.0.1:8080';
const apiPrefixes = ['/api', '/v1', '/lamb', '/docs'];

export default defineConfig({
  plugins: [sveltekit()],
  server: { proxy: Object.fromEntries(apiPrefixes.map((prefix) => [prefix, { target: apiUrl, changeOrigin: false }])) },
});
