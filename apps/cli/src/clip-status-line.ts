/** The status line of `daysync clip`. */
import { preview } from "./format.ts";
import { forTerminal } from "./terminal-text.ts";

/**
 * In a terminal, one line at the bottom that is rewritten in place, with news printed above it; elsewhere (a
 * service's log) only the news, one line each, and never the text of a copy.
 */
export class StatusLine {
  private current = "";
  constructor(private readonly stream: NodeJS.WriteStream) {}

  private get tty() {
    return this.stream.isTTY === true;
  }

  /** Texts name other devices and messages: their control characters are written out, never sent to the terminal. */
  show(shown: string) {
    const text = forTerminal(shown);
    this.current = text;
    if (this.tty) this.stream.write(`\r\x1b[2K${preview(text, Math.max(20, (this.stream.columns ?? 80) - 1))}`);
  }

  print(printed: string) {
    const text = forTerminal(printed, { lines: true });
    if (this.tty) this.stream.write(`\r\x1b[2K${text}\n`);
    else this.stream.write(`${text}\n`);
    if (this.tty && this.current) this.show(this.current);
  }

  clear() {
    if (this.tty) this.stream.write("\r\x1b[2K");
  }
}
