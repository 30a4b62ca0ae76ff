/**
 * How many new live sockets a process takes: `perSecond` on average, at most a tenth of a second's worth at once, so a
 * restart's thousands of devices coming back together are resumed at a pace the event loop keeps up with (issue 47).
 * It paces work, so it runs on the monotonic clock, not on the app's (which tests may stop).
 */
import { performance } from "node:perf_hooks";

export interface AcceptGate {
  /** True when a socket may be taken now (and counts it); false: it should try again shortly. */
  tryAccept(): boolean;
}

export function acceptGate(perSecond: number, now: () => number = () => performance.now()): AcceptGate {
  const burst = Math.max(1, Math.ceil(perSecond / 10));
  let tokens = burst;
  let at = now();
  return {
    tryAccept() {
      const t = now();
      tokens = Math.min(burst, tokens + ((t - at) * perSecond) / 1000);
      at = t;
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
