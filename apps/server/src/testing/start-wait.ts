/**
 * How long a test waits for a server it started (issue 43): 30 s on an idle machine, more while the machine is busy
 * (the load average per core, read as the wait begins), and `DAYSYNC_TEST_TIME_SCALE` times that on a slow CI.
 */
import { availableParallelism, loadavg } from "node:os";

const BASE_MS = 30_000;

export function serverStartTimeoutMs(base = BASE_MS): number {
  return loadScaledMs(base);
}

/**
 * `base` ms on an idle machine, times the load average per core (up to 8) while it is busy, and times
 * `DAYSYNC_TEST_TIME_SCALE`: for waits on work that takes CPU time (a long replay) or on the event loop's timing.
 */
export function loadScaledMs(base: number): number {
  const perCore = (loadavg()[0] ?? 0) / availableParallelism();
  const scale = Number(process.env.DAYSYNC_TEST_TIME_SCALE) || 1;
  return Math.round(base * Math.max(1, Math.min(perCore, 8)) * Math.max(1, scale));
}

/** The end of what a server printed, for the error that says it did not start. */
export function lastOutput(text: string, max = 4000): string {
  const tail = text.length > max ? `…${text.slice(-max)}` : text;
  return tail.trim() ? `\n--- server output ---\n${tail.trimEnd()}` : " (it printed nothing)";
}
