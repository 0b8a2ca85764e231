import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
import type { BenchReport } from './bench-report.ts';
import { attachRatios } from './attach-ratios.ts';
import { formatMachine, type MachineDescription } from './describe-machine.ts';
import { formatMarkdownTable } from './format-table.ts';

const HEADER = `# Benchmark results

Appended by \`npm run bench\` (see README.md), oldest first. Compare ratios rather than absolute numbers across
machines: both sides of a ratio were measured in the same run, on the same machine, under the same load.
`;

export interface ResultsSection {
  startedAt: Date;
  durationSeconds: number;
  command: string;
  machine: MachineDescription;
  reports: readonly BenchReport[];
}

export function formatResultsSection(section: ResultsSection): string {
  const lines = [
    `## ${section.startedAt.toISOString()}`,
    '',
    `Command: \`${section.command}\` (${section.durationSeconds.toFixed(0)} s)`,
    '',
    ...formatMachine(section.machine).map((line) => `- ${line}`),
  ];
  for (const report of section.reports) {
    lines.push(
      '',
      `### ${report.name}`,
      '',
      report.description,
      '',
      formatMarkdownTable(attachRatios(report.measurements)),
    );
    if (report.notes.length > 0) lines.push('', ...report.notes.map((note) => `- ${note}`));
  }
  return `${lines.join('\n')}\n`;
}

/** Appends one dated section; creates the file with its header on first use. */
export function appendResults(file: string, section: ResultsSection): void {
  if (!existsSync(file)) writeFileSync(file, HEADER);
  appendFileSync(file, `\n${formatResultsSection(section)}`);
}
