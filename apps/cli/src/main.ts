/** Entry of the `daysync` command: runs one command and turns every failure into a sentence and an exit code. */
import { CommanderError } from "commander";
import { CliError, EXIT } from "./errors.ts";
import { PINNED_SERVER_ENV, pinnedAuthority } from "./pinned-authority.ts";
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
    // Without --ca: the authority a pairing link pinned for this server, trusted the same way (issue 43).
    if (!ca && process.env[PINNED_SERVER_ENV] === undefined) {
      const pinned = await pinnedAuthority(argv.slice(2), process.env);
      if (pinned) return runTrusting(pinned.file, { [PINNED_SERVER_ENV]: pinned.server });
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
