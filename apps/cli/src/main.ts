/** Entry of the `daysync` command: runs one command and turns every failure into a sentence and an exit code. */
import { CommanderError } from "commander";
import { CliError, EXIT } from "./errors.ts";
import { buildProgram } from "./program.ts";

async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (error instanceof CliError) {
      process.stderr.write(`daysync: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`daysync: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT.failure;
  }
}

process.exitCode = await main(process.argv);
