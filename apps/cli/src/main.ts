/** Entry of the `daysync` command: runs one command and turns every failure into a sentence and an exit code. */
import { CommanderError } from "commander";
import { CliError, EXIT } from "./errors.ts";
import { buildProgram } from "./program.ts";
import { warn } from "./terminal-text.ts";

async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (error instanceof CliError) {
      warn(`daysync: ${error.message}`);
      return error.exitCode;
    }
    warn(`daysync: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return EXIT.failure;
  }
}

process.exitCode = await main(process.argv);
