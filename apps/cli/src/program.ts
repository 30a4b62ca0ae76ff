/** The `daysync` command tree: one subcommand per task, each with its own --help. A command's code loads only when it runs. */
import { Command, Option } from "commander";
import packageJson from "../package.json" with { type: "json" };
import { Context, type GlobalOptions } from "./context.ts";

const EXIT_CODES_HELP = `
Exit codes: 0 done, 1 failed, 2 wrong usage, 3 not signed in or signed out, 4 server unreachable,
5 message expired or missing, 6 file too large for the plan, 7 this device cannot read yet (approve it from
another device), 8 a message could not be decrypted, 9 not available on this system (clip --hotkey on Wayland,
macOS, Windows: it prints the desktop shortcut to add instead), 130 interrupted.`;

export function buildProgram(): Command {
  const program = new Command("daysync")
    .description("Move text, links and files between your own devices, kept per calendar day.")
    .version(packageJson.version)
    .addOption(new Option("-s, --server <url>", "the Daysync server (default: the last one signed in to)").env("DAYSYNC_SERVER"))
    .addOption(
      new Option("--ca <file>", "trust this certificate authority (PEM) for the server's HTTPS: your home server's daysync-ca.pem").env(
        "DAYSYNC_CA",
      ),
    )
    .showHelpAfterError("(run daysync --help, or daysync COMMAND --help, for the usage)")
    .addHelpText("after", EXIT_CODES_HELP)
    .exitOverride();

  /** The command's context, from the options every command inherits. */
  const context = (command: Command, serverArgument?: string) => new Context(command.optsWithGlobals<GlobalOptions>(), serverArgument);

  program
    .command("login")
    .description("sign this terminal in: shows a QR code and a short code to approve on a signed-in phone or browser")
    .argument(
      "[server_url]",
      "the Daysync server, e.g. https://daysync.example.com, or a link ending in &c=… (Devices → Add a device, or a home server's /trust page), which also trusts that server's own certificate",
    )
    .option("--password", "sign in with email and password instead (the password is read without echo, or from standard input)")
    .option("--email <email>", "the email for --password")
    .action(async (serverUrl: string | undefined, options, command: Command) =>
      (await import("./commands/login.ts")).login(context(command, serverUrl), options),
    );

  program
    .command("logout")
    .description("end this terminal's session on the server and forget it here")
    .action(async (_options, command: Command) => (await import("./commands/login.ts")).logout(context(command)));

  program
    .command("unlock")
    .description("let this terminal read your messages with your recovery code (asked without echo, or read from standard input)")
    .action(async (_options, command: Command) => (await import("./commands/unlock.ts")).unlock(context(command)));

  program
    .command("start-over")
    .description(
      "on a locked terminal no device can approve: make a new key (what was sent before stays unreadable), or ask to in 24 hours",
    )
    .option("--yes", "confirm starting over without typing it (for scripts)")
    .option("--cancel", "withdraw this terminal's request to start over, or cancel another device's")
    .action(async (options, command: Command) => (await import("./commands/start-over.ts")).startOver(context(command), options));

  program
    .command("send")
    .description("send a text message of today (from the arguments or standard input), or files with --file")
    .argument("[text...]", "the text; read from standard input when there is none")
    .option("-f, --file <path...>", "upload these files (resumable: run the same command again after an interruption)")
    .option("--clipboard", "send what the clipboard holds now, once (bind it to a desktop keyboard shortcut)")
    .option("--include-secrets", "with --clipboard: send a copy a password manager marked as concealed too")
    .option("--json", "print what was sent as JSON")
    .option(
      "--discussion <id>",
      'send the text to an encrypted discussion joined with "daysync discussion join" (its ID, ABCDE-FGHJK, or its link), sealed under its room key',
    )
    .addHelpText(
      "after",
      "\nExamples:\n  daysync send 'see you at 8'\n  echo hi | daysync send\n  daysync send < notes.txt\n  daysync send --file photo.jpg report.pdf\n  daysync send --clipboard\n  daysync send --discussion ABCDE-FGHJK 'on my way'",
    )
    .action(async (text: string[], options, command: Command) =>
      (await import("./commands/send.ts")).send(context(command), text, options),
    );

  program
    .command("ls")
    .description("list the messages of a day (default today) with time, type, size and time left")
    .option("-d, --day <DD/MM/YYYY>", "the day to list")
    .option("--json", "print a JSON array of messages")
    .action(async (options, command: Command) => (await import("./commands/list.ts")).listDay(context(command), options));

  program
    .command("days")
    .description("list the days that have messages, newest first")
    .option("--json", "print a JSON array of days")
    .action(async (options, command: Command) => (await import("./commands/list.ts")).listDays(context(command), options));

  program
    .command("search")
    .description("find live text messages containing TEXT (sealed ones are opened and matched on this terminal)")
    .argument("<text...>", "what to look for")
    .option("--json", "print a JSON array of results")
    .action(async (text: string[], options, command: Command) =>
      (await import("./commands/search.ts")).search(context(command), text, options),
    );

  program
    .command("get")
    .description("print a text message, or download a file message under its own name")
    .argument("<id>", 'a message id from "daysync ls", or "last" for the newest message')
    .option("-o, --output <path>", "write here instead (a folder keeps the original name; - is standard output)")
    .option("--force", "overwrite a file that exists")
    .action(async (id: string, options, command: Command) => (await import("./commands/get.ts")).get(context(command), id, options));

  program
    .command("watch")
    .description("print each new message as it arrives (resumes after a dropped connection: nothing missed, nothing twice)")
    .option("--copy", "put each new text into the system clipboard")
    .option("--json", "print one JSON object per line")
    .option("--exec <command>", "run this shell command for each new message, the message on its standard input")
    .option(
      "--discussion <id>",
      "print the new messages of an encrypted discussion this account joined (its ID or link) instead, opened with its room key",
    )
    .action(async (options, command: Command) => (await import("./commands/watch.ts")).watch(context(command), options));

  program
    .command("clip")
    .description("the clipboard both ways: each text copied here goes to your devices, texts from your other devices land in the clipboard")
    .option("--receive-only", "only write texts from your other devices into the clipboard")
    .option("--send-only", "only send what is copied here")
    .option("--min-length <n>", "do not send copies shorter than this many characters")
    .option(
      "--ignore <regex>",
      "do not send copies that match this regular expression (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .option("--images", "send copied images too, as files")
    .option("--include-secrets", "also send copies that password managers mark as concealed")
    .option("--pause", "pause the running clip (from another terminal); it stays paused until --resume")
    .option("--resume", "resume a paused clip")
    .option("--install-service", "start clip at login with these options (systemd user service, launchd agent, Windows Startup folder)")
    .option("--uninstall-service", "remove that service")
    .option(
      "--hotkey [keys]",
      "do not watch the clipboard: send what it holds, once, at each press of this global shortcut (X11; default Ctrl+Alt+D); elsewhere it prints the desktop binding to add",
    )
    .addHelpText(
      "after",
      "\nIt never echoes: a text it wrote is not sent back, and a text it sent is not written back.\nPause and resume also with signals: kill -USR1 PID pauses, kill -USR2 PID resumes.\n\nExamples:\n  daysync clip\n  daysync clip --min-length 3 --ignore '^\\d{6}$'\n  daysync clip --install-service\n  daysync clip --hotkey Ctrl+Alt+D",
    )
    .action(async (options, command: Command) => (await import("./commands/clip.ts")).clip(context(command), options));

  const discussion = program
    .command("discussion")
    .description("end-to-end encrypted discussions: join one from its link, then send and watch with --discussion");
  discussion
    .command("join")
    .description("join an encrypted discussion with its share link (the key after # stays on this terminal and your account's devices)")
    .argument("<link>", "the share link, …/discussions/join/ABCDEFGHJK#room=…&g=…&k=… (quote it for the shell: it holds &)")
    .option("--name <name>", "the name the others see in this discussion (required; at most 40 characters)")
    .option("--json", "print what was joined as JSON")
    .addHelpText(
      "after",
      "\nExamples:\n  daysync discussion join 'https://daysync.example.com/discussions/join/ABCDEFGHJK#room=…' --name Cleo\n  daysync send --discussion ABCDE-FGHJK 'hello'\n  daysync watch --discussion ABCDE-FGHJK",
    )
    .action(async (link: string, options, command: Command) =>
      (await import("./commands/discussion.ts")).joinDiscussion(context(command), link, options),
    );

  const devices = program
    .command("devices")
    .description("list the signed-in devices of your account")
    .option("--json", "print a JSON array of devices")
    .action(async (options, command: Command) => (await import("./commands/devices.ts")).listDevices(context(command), options));
  devices
    .command("rm")
    .description("sign a device out (it needs to sign in again)")
    .argument("<id>", 'the device id from "daysync devices" (or its first characters)')
    .action(async (id: string, _options, command: Command) => (await import("./commands/devices.ts")).removeDevice(context(command), id));

  return program;
}
