/** A test server's log lines, as written (pino's JSON, one object a line), for tests of what gets logged. */

import { z } from "zod";
import type { LogStream } from "../http/http-server.ts";

/** pino's level numbers. */
export const LOG_LEVEL = { warn: 40, error: 50 } as const;

const lineSchema = z.looseObject({ level: z.number(), msg: z.string().optional() });
export type LogLine = z.infer<typeof lineSchema>;

export class LogCapture implements LogStream {
  /** Each line as written, for what a reader of the log file sees. */
  readonly raw: string[] = [];

  write(text: string): void {
    for (const line of text.split("\n")) if (line) this.raw.push(line);
  }

  lines(): LogLine[] {
    return this.raw.map((line) => lineSchema.parse(JSON.parse(line)));
  }

  /** Lines at `level` or above. */
  atLeast(level: number): LogLine[] {
    return this.lines().filter((line) => line.level >= level);
  }
}
