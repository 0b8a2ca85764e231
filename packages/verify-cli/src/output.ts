/** Where a command writes: the process's streams in the CLI, buffers in tests. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

export const processOutput: Output = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/** Exit status of every command: 0 all valid, 1 at least one input invalid, 2 usage error or unreadable input. */
export const EXIT_VALID = 0;
export const EXIT_INVALID = 1;
export const EXIT_UNREADABLE = 2;
