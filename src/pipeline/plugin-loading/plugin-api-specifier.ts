/**
 * Makes `merino/plugin-api` resolvable from anywhere, so a plugin dropped into PLUGINS_DIR (outside
 * this installation, with no node_modules of its own) imports the plugin API by that one stable
 * name, whether Merino runs compiled (`dist/`) or from source. Node's module hooks
 * (`module.register`) are the supported way to add a bare specifier; the hook is a few lines of
 * plain JavaScript handed over as a data URL, because it runs on Node's loader thread, where this
 * TypeScript file is not loaded.
 */
import { register } from 'node:module';

export const PLUGIN_API_SPECIFIER = 'merino/plugin-api';

const HOOKS = `
let target;
export async function initialize(data) { target = data.target; }
export async function resolve(specifier, context, nextResolve) {
  return nextResolve(specifier === ${JSON.stringify(PLUGIN_API_SPECIFIER)} ? target : specifier, context);
}
`;

let registered = false;

/** Once per process, before the installed plugins load. */
export function registerPluginApiSpecifier(): void {
  if (registered) return;
  registered = true;
  const target = new URL('../plugin-api.js', import.meta.url).href;
  register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, { data: { target } });
}
