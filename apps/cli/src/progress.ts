/** A progress bar on standard error for uploads and downloads, only when a person watches the terminal. */
import cliProgress from "cli-progress";
import { formatBytes } from "./format.ts";

export interface Progress {
  update(done: number): void;
  stop(): void;
}

export function progressBar(label: string, total: number, start = 0): Progress {
  if (!process.stderr.isTTY) return { update() {}, stop() {} };
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {percentage}% | {done} of {size} | {eta_formatted} left`,
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  const payload = (done: number) => ({ done: formatBytes(done), size: formatBytes(total) });
  bar.start(total, start, payload(start));
  return {
    update: (done) => bar.update(done, payload(done)),
    stop: () => bar.stop(),
  };
}
