/**
 * CHANGELOG.md (SPEC "Versioning" 7): every entry of the newest section (`## Unreleased`, or the release being made,
 * `## 1.0.0 — <date>`) ends with its action label, `(no action)`,
 * `(action: optional)`, `(action: optional — what to do)` or the same with `required`, so an integrator can find
 * what they must do by reading the labels alone. An entry is a `- ` bullet with its indented continuation lines.
 */
import { describe, expect, it } from 'vitest';
import { readRepositoryFile, sectionOf } from './markdown.ts';

const LABEL = /\((no action|action: (required|optional)( — [^()]*(\([^()]*\)[^()]*)*)?)\)\.?$/;

function entries(section: string): string[] {
  const found: string[] = [];
  let current: string | undefined;
  for (const line of section.split('\n')) {
    if (line.startsWith('- ')) {
      if (current !== undefined) found.push(current);
      current = line;
    } else if (current !== undefined && line.startsWith('  ') && line.trim() !== '') {
      current += ` ${line.trim()}`;
    } else {
      if (current !== undefined) found.push(current);
      current = undefined;
    }
  }
  if (current !== undefined) found.push(current);
  return found;
}

describe('CHANGELOG.md', () => {
  const changelog = readRepositoryFile('CHANGELOG.md');
  const unreleased = sectionOf(changelog, `## ${/^## (.+)$/m.exec(changelog)?.[1] ?? 'Unreleased'}`);

  it('has entries in its newest section, each under a subsection', () => {
    expect(entries(unreleased).length).toBeGreaterThan(20);
    const beforeFirstSubsection = unreleased.split(/^### /m)[0]!;
    expect(entries(beforeFirstSubsection)).toEqual([]);
  });

  it('ends every entry of its newest section with an action label', () => {
    const unlabelled = entries(unreleased).filter((entry) => !LABEL.test(entry.trim()));
    expect(unlabelled.map((entry) => `${entry.slice(0, 80)} … ${entry.slice(-60)}`)).toEqual([]);
  });

  it('recognises the labels it is meant to, and nothing else', () => {
    expect(LABEL.test('- a change (no action)')).toBe(true);
    expect(LABEL.test('- a change (action: optional)')).toBe(true);
    expect(LABEL.test('- a change (action: required — re-register (with `x`) the endpoint)')).toBe(true);
    expect(LABEL.test('- a change (action: required for integrators)')).toBe(false);
    expect(LABEL.test('- a change (no action) and more')).toBe(false);
    expect(LABEL.test('- a change')).toBe(false);
  });
});
