/**
 * Pausing `daysync clip` without quitting: the state is a file in the config folder (so a paused clip stays
 * paused when restarted), and a running clip is told at once by a signal (SIGUSR1 pause, SIGUSR2 resume) where
 * the system has them; it also notices the file changing, which is how it hears of it on Windows.
 */
import { mkdirSync, readFileSync, unwatchFile, watchFile, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

const stateSchema = z.object({ paused: z.boolean(), pid: z.number().int().positive().nullable().default(null) });
type ClipState = z.infer<typeof stateSchema>;

export const PAUSE_SIGNAL = "SIGUSR1";
export const RESUME_SIGNAL = "SIGUSR2";

export class ClipPause {
  readonly file: string;
  constructor(configDir: string) {
    this.file = path.join(configDir, "clip-state.json");
  }

  read(): ClipState {
    try {
      return stateSchema.parse(JSON.parse(readFileSync(this.file, "utf8")));
    } catch {
      return { paused: false, pid: null };
    }
  }

  write(state: ClipState) {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    writeFileSync(this.file, `${JSON.stringify(state)}\n`, { mode: 0o600 });
  }

  /** From another terminal: saves the state and tells the running clip. Says what happened. */
  set(paused: boolean): string {
    const { pid } = this.read();
    this.write({ paused, pid });
    const running = pid !== null && isRunning(pid);
    if (running && process.platform !== "win32") process.kill(pid, paused ? PAUSE_SIGNAL : RESUME_SIGNAL);
    if (paused) return running ? `Paused daysync clip (process ${pid}).` : "No daysync clip is running; the next one starts paused.";
    return running ? `Resumed daysync clip (process ${pid}).` : "No daysync clip is running; the next one starts syncing.";
  }

  /** In the running clip: calls `changed` when the state file is changed from elsewhere. */
  watch(changed: (paused: boolean) => void): () => void {
    const listener = () => changed(this.read().paused);
    watchFile(this.file, { interval: 1000 }, listener);
    return () => unwatchFile(this.file, listener);
  }

  /** The running clip leaves, keeping the pause for the next one. */
  release(pid: number) {
    const state = this.read();
    if (state.pid === pid) this.write({ ...state, pid: null });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
