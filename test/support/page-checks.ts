/**
 * Checks the web app's browser tests make on the page as it is now: horizontal overflow, which
 * element has focus and whether it shows a focus ring, and the heading a page settles on. They
 * name only the few DOM members they read, so the test project needs no DOM typings.
 */
import type { Locator, Page } from 'playwright-core';

/** How many pixels the page is wider than the viewport; 0 or less means no horizontal scrolling. */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
}

/** Just what the checks below read of an element, so the test project needs no DOM typings. */
interface FocusableElement {
  ownerDocument: {
    activeElement: unknown;
    defaultView: { getComputedStyle(element: unknown): { outlineWidth: string } } | null;
  };
}

/** Whether the one element `target` finds has the keyboard focus. */
export async function isFocused(target: Locator): Promise<boolean> {
  if ((await target.count()) !== 1) return false;
  return target.evaluate((element: FocusableElement) => element === element.ownerDocument.activeElement);
}

/** The width in pixels of the element's outline, the focus ring of the design system. */
export async function focusRingWidth(target: Locator): Promise<number> {
  return target.evaluate((element: FocusableElement) => {
    const width = element.ownerDocument.defaultView?.getComputedStyle(element).outlineWidth ?? '0';
    return Number.parseFloat(width) || 0;
  });
}

/** Waits until the page's heading says `name` (a page shows a loading heading first). */
export async function waitForHeading(page: Page, name: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
}
