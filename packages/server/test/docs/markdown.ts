/**
 * Just enough Markdown for the documentation drift tests: a section by its heading, and the rows of the pipe tables
 * in it. `\|` inside a cell is a literal bar (the README writes `URL\|FILE`), so it does not split the cell.
 */
import { readFileSync } from 'node:fs';

const REPOSITORY_ROOT = new URL('../../../../', import.meta.url);

export function readRepositoryFile(path: string): string {
  return readFileSync(new URL(path, REPOSITORY_ROOT), 'utf8');
}

/** The text under `heading` (e.g. `## CLI`) up to the next heading of the same or a higher level. */
export function sectionOf(markdown: string, heading: string): string {
  const level = /^#+/.exec(heading)?.[0].length ?? 0;
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start === -1) throw new Error(`no heading \`${heading}\``);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => {
    const hashes = /^(#+) /.exec(line)?.[1];
    return hashes !== undefined && hashes.length <= level;
  });
  return (end === -1 ? rest : rest.slice(0, end)).join('\n');
}

/** Body rows of every pipe table in `markdown`, each as its trimmed cells (header and separator rows dropped). */
export function tableRows(markdown: string): string[][] {
  const rows: string[][] = [];
  let inTable = false;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      inTable = false;
      continue;
    }
    if (!inTable) {
      inTable = true; // the header row
      continue;
    }
    if (/^\|[\s:|-]+\|$/.test(line)) continue;
    rows.push(splitRow(line));
  }
  return rows;
}

function splitRow(line: string): string[] {
  const cells = line.slice(1, line.endsWith('|') ? -1 : undefined).split(/(?<!\\)\|/);
  return cells.map((cell) => cell.replace(/\\\|/g, '|').trim());
}

/** The contents of every `code span` in a cell, in order. */
export function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}
