/**
 * Turns on the event loop for long background work such as replays. One waiting task resumes per loop
 * iteration, with requests and timers served in between: ten replays at once hold the loop for one slice
 * at a time, not ten (ten `setImmediate`s queued together would all run in the same iteration).
 */
const waiting: Array<() => void> = [];

function runNext(): void {
  const next = waiting.shift();
  if (waiting.length > 0) setImmediate(runNext);
  next?.();
}

/** Resolves when it is this task's turn again; other I/O runs first. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (waiting.length === 1) setImmediate(runNext);
  });
}
