/** The status line of `daysync clip`. */
import { preview } from "./format.ts";

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

  show(text: string) {
    this.current = text;
    if (this.tty) this.stream.write(`\r\x1b[2K${preview(text, Math.max(20, (this.stream.columns ?? 80) - 1))}`);
  }

  print(text: string) {
    if (this.tty) this.stream.write(`\r\x1b[2K${text}\n`);
    else this.stream.write(`${text}\n`);
    if (this.tty && this.current) this.show(this.current);
  }

  clear() {
    if (this.tty) this.stream.write("\r\x1b[2K");
  }
}
