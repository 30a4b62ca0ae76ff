/** Entry of the `daysync` command: runs one command and turns every failure into a sentence and an exit code. */
import { CommanderError } from "commander";
import { CliError, EXIT } from "./errors.ts";
import { buildProgram } from "./program.ts";
import { warn } from "./terminal-text.ts";
import { alreadyTrusted, caFileOf, checkCaFile, runTrusting } from "./trusted-ca.ts";

async function main(argv: string[]): Promise<number> {
  try {
    const ca = caFileOf(argv.slice(2), process.env);
    if (ca && !alreadyTrusted(ca, process.env)) {
      checkCaFile(ca);
      return runTrusting(ca);
    }
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
