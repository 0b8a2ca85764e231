/**
 * The data paths a pack's rules read, so the server computes the expensive facts (counters, local time) only for
 * packs that read them.
 */
import { isRecord } from '../decide/guards.ts';
import { collectRulePaths } from './profile.ts';

/** Every `var` / `missing` path of the pack's rules at the context's top scope, deduplicated, in first-use order. */
export function rulePaths(doc: unknown): string[] {
  const paths: string[] = [];
  if (!isRecord(doc) || !Array.isArray(doc.rules)) return paths;
  for (const rule of doc.rules) if (isRecord(rule)) collectRulePaths(rule.when, paths);
  return [...new Set(paths)];
}

/**
 * Whether any of `paths` may read `fact` (`facts.counters`): a path at or below it, or above it (`facts`, and `""`,
 * the whole context, read it whole).
 */
export function pathsRead(paths: readonly string[], fact: string): boolean {
  return paths.some(
    (path) => path === '' || path === fact || path.startsWith(`${fact}.`) || fact.startsWith(`${path}.`),
  );
}
