/**
 * README's CLI section against the commands `aar` registers (cli/main.ts, walked through commander itself, so a
 * command added to COMMANDS is seen without this test knowing it): every command has a row, no row names a command
 * that does not exist, every flag of a command is in its row or in the configuration table (the flags every command
 * shares with `aar serve`), and no row or configuration entry names a flag its command does not take.
 */
import type { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../../src/cli/main.ts';
import { codeSpans, readRepositoryFile, sectionOf, tableRows } from './markdown.ts';

interface CliCommand {
  /** e.g. `tokens create` */
  path: string;
  flags: string[];
}

function leafCommands(command: Command, prefix: string[] = []): CliCommand[] {
  return command.commands.flatMap((sub) => {
    const path = [...prefix, sub.name()];
    const flags = sub.options.map((o) => o.long).filter((f): f is string => f !== undefined);
    const own = [{ path: path.join(' '), flags }];
    // a command with subcommands is a command too when it runs on its own (`aar mcp`, beside `aar mcp guard`)
    const handler = (sub as unknown as { _actionHandler?: unknown })._actionHandler;
    const runnable = handler !== undefined && handler !== null;
    if (sub.commands.length > 0) return [...(runnable ? own : []), ...leafCommands(sub, path)];
    return own;
  });
}

/** `aar tokens revoke <token_id>` → `tokens revoke`: the words before the first argument or flag. */
function commandPathOf(usage: string): string {
  const words = usage.split(/\s+/).slice(1);
  const end = words.findIndex((w) => !/^[a-z][a-z-]*$/.test(w));
  return (end === -1 ? words : words.slice(0, end)).join(' ');
}

function flagsIn(text: string): string[] {
  return [...text.matchAll(/(?<![\w-])--[a-z][a-z-]*/g)].map((m) => m[0]);
}

describe('README CLI section', () => {
  const readme = readRepositoryFile('README.md');
  const rows = tableRows(sectionOf(readme, '## CLI')).map((cells) => {
    const usage = codeSpans(cells[0] ?? '')[0];
    expect(usage, `CLI row \`${cells.join(' | ')}\` starts with a command in a code span`).toMatch(/^aar /);
    return { usage: usage!, path: commandPathOf(usage!), flags: flagsIn(usage!), what: cells[1] ?? '' };
  });
  const configRows = tableRows(sectionOf(readme, '## Configuration')).map((cells) => codeSpans(cells[1] ?? ''));
  /** flag → the command the configuration table says takes it (`serve` unless the cell names another) */
  const configFlags = new Map<string, string>();
  for (const spans of configRows) {
    const command = spans.find((s) => !s.startsWith('--')) ?? 'serve';
    for (const flag of spans.filter((s) => s.startsWith('--'))) configFlags.set(flag, command);
  }

  let program: Command;
  let commands: CliCommand[];
  beforeAll(async () => {
    program = await buildCli([]);
    commands = leafCommands(program);
  });

  it('finds the commands cli/main.ts registers (the walk itself works)', () => {
    expect(commands.map((c) => c.path)).toEqual(expect.arrayContaining(['serve', 'tokens create', 'conformance run']));
  });

  it('has a row for every command, and for --version', () => {
    const documented = new Set(rows.map((r) => r.path));
    expect(commands.map((c) => c.path).filter((p) => !documented.has(p))).toEqual([]);
    expect(program.options.map((o) => o.long)).toContain('--version');
    expect(rows.map((r) => r.usage)).toContain('aar --version');
  });

  it('names no command that does not exist, and none twice', () => {
    const known = new Set(commands.map((c) => c.path));
    const rowPaths = rows.filter((r) => r.usage !== 'aar --version').map((r) => r.path);
    expect(rowPaths.filter((p) => !known.has(p))).toEqual([]);
    expect(rowPaths.filter((p, i) => rowPaths.indexOf(p) !== i)).toEqual([]);
  });

  it("documents every flag of every command, in its row or in the configuration table's flag column", () => {
    const undocumented: string[] = [];
    for (const command of commands) {
      const row = rows.find((r) => r.path === command.path);
      for (const flag of command.flags) {
        if (row?.flags.includes(flag) || configFlags.has(flag)) continue;
        undocumented.push(`aar ${command.path} ${flag}`);
      }
    }
    expect(undocumented).toEqual([]);
  });

  it('names no flag its command does not take', () => {
    const unknown: string[] = [];
    for (const row of rows.filter((r) => r.usage !== 'aar --version')) {
      const command = commands.find((c) => c.path === row.path);
      for (const flag of row.flags) if (!command?.flags.includes(flag)) unknown.push(`aar ${row.path} ${flag}`);
    }
    for (const [flag, path] of configFlags) {
      const command = commands.find((c) => c.path === path);
      if (!command?.flags.includes(flag)) unknown.push(`configuration table: aar ${path} ${flag}`);
    }
    expect(unknown).toEqual([]);
  });

  it('says what each command does', () => {
    for (const row of rows) expect(row.what.length, row.usage).toBeGreaterThan(10);
  });
});
