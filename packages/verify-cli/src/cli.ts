/** The command's entry point (bundled into dist/aar-verify.js): runs main on the process's arguments. */
import { main } from './main.ts';

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.stderr.write(`aar-verify: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 2;
  },
);
