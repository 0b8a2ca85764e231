/**
 * README's first screen gives a newcomer the two commands a fresh machine needs: one that installs and starts the
 * service on its embedded default, one that installs and runs the tests, and both name scripts package.json has.
 * And README links every page of docs/, so a page added with a capability is reachable from the front door.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readRepositoryFile } from './markdown.ts';

/** What fits a terminal or the top of a rendered page without scrolling. */
const FIRST_SCREEN_LINES = 30;

describe('README', () => {
  const readme = readRepositoryFile('README.md');
  const scripts = (JSON.parse(readRepositoryFile('package.json')) as { scripts: Record<string, string> }).scripts;

  it('gives the start and test commands on its first screen, as scripts package.json has', () => {
    const firstScreen = readme.split('\n').slice(0, FIRST_SCREEN_LINES);
    const start = firstScreen.find((line) => /^npm ci && .*npm start$/.test(line));
    const test = firstScreen.find((line) => line === 'npm ci && npm test');
    expect(start, 'an install-and-start command').toBeDefined();
    expect(test, 'an install-and-test command').toBeDefined();
    expect(scripts.start).toBe('aar serve');
    expect(scripts.test).toBeDefined();
  });

  it('links every page of docs/', () => {
    const pages = readdirSync(new URL('../../../../docs/', import.meta.url)).filter((f) => f.endsWith('.md'));
    expect(pages.length).toBeGreaterThan(10);
    expect(pages.filter((page) => !readme.includes(`(docs/${page})`))).toEqual([]);
  });
});
