/**
 * The one place the web app takes Chart.js from: only the controllers, elements and scales the usage
 * charts draw with are registered, so the bundle carries just those (Chart.js 4 is tree-shakeable
 * when its parts are imported by name). Colours come from the design system's CSS variables, so
 * charts follow light and dark mode, and animation is off for whoever asked for reduced motion.
 */
import { ArcElement, BarController, BarElement, CategoryScale, Chart, DoughnutController, Legend, LinearScale, Tooltip } from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, DoughnutController, ArcElement, Tooltip, Legend);

export { Chart };

/** The design system's colour a CSS variable names, resolved for the element's colour scheme. */
export function resolvedColour(element: HTMLElement, variable: string): string {
  const probe = document.createElement('span');
  probe.style.color = `var(${variable})`;
  probe.hidden = true;
  element.append(probe);
  const colour = getComputedStyle(probe).color;
  probe.remove();
  return colour;
}

export function prefersReducedMotion(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}
