/**
 * Preloaded into the server process by a benchmark (`node --import tsx --import this-file main.ts`, with an IPC
 * channel): "start" resets and starts an event-loop delay histogram (answered "started", so the benchmark knows the
 * server is measuring before it asks for work), "stop" stops it and answers its figures in ms.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";

export interface LoopDelay {
  samples: number;
  p50: number;
  p99: number;
  max: number;
}

const histogram = monitorEventLoopDelay({ resolution: 1 });
const ms = (ns: number) => +(ns / 1e6).toFixed(2);

process.on("message", (command) => {
  if (command === "start") {
    histogram.reset();
    histogram.enable();
    process.send?.("started");
  } else if (command === "stop") {
    histogram.disable();
    const figures: LoopDelay = {
      samples: histogram.count,
      p50: ms(histogram.percentile(50)),
      p99: ms(histogram.percentile(99)),
      max: ms(histogram.max),
    };
    process.send?.(figures);
  }
});
// The channel alone must not keep the server alive once it has shut down.
process.channel?.unref();
