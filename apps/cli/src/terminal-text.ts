/**
 * Everything the command line prints for a person goes through here (issue 42, point 6). Names, file names, texts
 * and error messages are chosen by other devices (a sealed file's name never passes the server's checks), and a
 * control character in them would reach the terminal: ESC ] 52 (OSC 52) writes the clipboard, CSI moves the cursor
 * or recolours, a carriage return overwrites the line. Each control is printed visibly instead (`\x1b`, `\u009b`),
 * so what was sent can still be read. `--json` output and the clipboard keep the exact text.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is escaped.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the same, but a text's own line breaks and tabs stay.
const CONTROL_BUT_LINES = /\r\n|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

const visible = (control: string) => {
  if (control === "\r\n") return "\n";
  const code = control.charCodeAt(0);
  if (control === "\n") return "\\n";
  if (control === "\t") return "\\t";
  if (control === "\r") return "\\r";
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : control;
};

/** `text` with every control character written out visibly; with `lines`, its line breaks and tabs stay as they are. */
export function forTerminal(text: string, options: { lines?: boolean } = {}): string {
  return text.replace(options.lines ? CONTROL_BUT_LINES : CONTROL, visible);
}

/** One or more lines for a person on standard output; a message's own line breaks are kept. */
export function say(text: string): void {
  process.stdout.write(`${forTerminal(text, { lines: true })}\n`);
}

/** The same on standard error: notices, warnings and errors. */
export function warn(text: string): void {
  process.stderr.write(`${forTerminal(text, { lines: true })}\n`);
}
