/**
 * One headless Debian Chromium per test file, driven by playwright-core (no browser download: the system's
 * /usr/bin/chromium, with the flags DEVELOPERS.md lists). Helpers check what every page must hold: no console error or
 * uncaught exception, every control with an accessible name, no horizontal overflow, and a screenshot kept as a test
 * artefact under .tmp/screenshots/ (ignored by git).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.AAR_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Skipped where Chromium is missing, except under CI=true, where the launch then fails the suite. */
export const browserAvailable = existsSync(CHROMIUM) || process.env.CI === 'true';
if (!browserAvailable) {
  console.warn(
    `[console browser tests] NOTICE: ${CHROMIUM} is missing, SKIPPED. Install it: apt-get install -y chromium`,
  );
}

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
export const SCREENSHOT_DIR = join(ROOT, '.tmp', 'screenshots');

export const WIDE = { width: 1280, height: 900 };
export const NARROW = { width: 390, height: 844 };

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** console errors and uncaught exceptions so far */
  problems: string[];
}

export async function openPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: WIDE, locale: 'en-GB', timezoneId: 'UTC' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`console.${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  return { context, page, problems };
}

/** Inputs, selects, text areas and buttons that have no accessible name (described as `tag#id "text"`). */
export async function unlabelledControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const nameOf = (el: HTMLElement): string => {
      const byLabelledBy = (el.getAttribute('aria-labelledby') ?? '')
        .split(/\s+/)
        .map((id) => (id ? (document.getElementById(id)?.textContent ?? '') : ''))
        .join(' ');
      const byLabels = Array.from((el as HTMLInputElement).labels ?? [])
        .map((l) => l.textContent ?? '')
        .join(' ');
      const own = el.tagName === 'BUTTON' ? (el.textContent ?? '') : '';
      return [el.getAttribute('aria-label') ?? '', byLabelledBy, byLabels, own, el.getAttribute('title') ?? '']
        .join(' ')
        .trim();
    };
    return Array.from(document.querySelectorAll<HTMLElement>('input, select, textarea, button'))
      .filter((el) => (el as HTMLInputElement).type !== 'hidden' && nameOf(el) === '')
      .map((el) => `${el.tagName.toLowerCase()}#${el.id} ${el.outerHTML.slice(0, 120)}`);
  });
}

/** How many CSS pixels the page is wider than the viewport (0 when nothing overflows sideways). */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** The innermost elements reaching past the viewport's right edge, to say what overflows. */
async function overflowingElements(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const limit = document.documentElement.clientWidth;
    const wide = Array.from(document.querySelectorAll<HTMLElement>('body *')).filter(
      // its box, or its content spilling out of it (a long unbreakable word in a narrow box)
      (el) =>
        Math.max(el.getBoundingClientRect().right, el.getBoundingClientRect().left + el.scrollWidth) > limit + 0.5,
    );
    return wide
      .filter((el) => !wide.some((other) => other !== el && el.contains(other)))
      .slice(0, 5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className} "${(el.textContent ?? '').slice(0, 40)}"`);
  });
}

/**
 * Elements that reach past the edge of the drawn box they sit in (the nearest ancestor with a border or a background):
 * a badge spilling out of its card overflows nothing at the page's level, and would pass the check above. Content
 * inside a box that scrolls or clips (a table in `.table-wrap`) is its own box's business, and is not counted.
 */
async function spillingElements(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const drawn = (el: Element): boolean => {
      const style = getComputedStyle(el);
      const border = parseFloat(style.borderLeftWidth) + parseFloat(style.borderRightWidth);
      return border > 0 || (style.backgroundColor !== 'rgba(0, 0, 0, 0)' && style.backgroundColor !== 'transparent');
    };
    const clips = (el: Element): boolean => getComputedStyle(el).overflowX !== 'visible';
    const describe = (el: Element): string =>
      `${el.tagName.toLowerCase()}.${el.className} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
    const found: string[] = [];
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('body *'))) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      // its own text spilling out of it (a `white-space: nowrap` badge narrower than its words); pseudo-elements
      // such as the chain's arrows are drawn outside on purpose and are not text
      if (drawn(el) && !clips(el)) {
        for (const node of Array.from(el.childNodes)) {
          if (node.nodeType !== Node.TEXT_NODE || (node.textContent ?? '').trim() === '') continue;
          const range = document.createRange();
          range.selectNodeContents(node);
          const text = range.getBoundingClientRect();
          if (text.right > box.right + 0.5 || text.left < box.left - 0.5) {
            found.push(`the text of ${describe(el)} spills out of it`);
            break;
          }
        }
      }
      for (let outer = el.parentElement; outer && outer !== document.body; outer = outer.parentElement) {
        if (clips(outer)) break;
        if (!drawn(outer)) continue;
        const edge = outer.getBoundingClientRect();
        if (box.right > edge.right + 0.5 || box.left < edge.left - 0.5) {
          found.push(`${describe(el)} spills out of ${describe(outer)}`);
        }
        break;
      }
    }
    return found.slice(0, 5);
  });
}

/** Saves a full-page screenshot as `.tmp/screenshots/<name>-<width>.png` and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}-${page.viewportSize()?.width ?? 0}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * The checks every page gets, at 1280 px and at 390 px: labelled controls, no sideways overflow of the page nor of
 * any element out of the box it is drawn in, a screenshot each.
 * Leaves the viewport wide.
 */
export async function checkPageAtBothWidths(page: Page, name: string): Promise<void> {
  for (const size of [NARROW, WIDE]) {
    await page.setViewportSize(size);
    await page.waitForTimeout(50);
    // taken first, so a failing check leaves a picture of what failed
    await screenshot(page, name);
    const overflow = await horizontalOverflow(page);
    if (overflow > 0) {
      const culprits = await overflowingElements(page);
      throw new Error(`${name} at ${size.width} px overflows by ${overflow} px: ${culprits.join('; ')}`);
    }
    const spilling = await spillingElements(page);
    if (spilling.length > 0) throw new Error(`${name} at ${size.width} px: ${spilling.join('; ')}`);
    const unlabelled = await unlabelledControls(page);
    if (unlabelled.length > 0) throw new Error(`${name}: controls without a name: ${unlabelled.join('; ')}`);
  }
}
