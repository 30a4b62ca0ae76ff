/** A test's frames on a device's live socket that the server answers by their `ref` (issue 47: send and delete). */
import type { ServerLiveMessage } from "@daysync/shared";
import type { Device, LiveClient } from "./test-server.ts";

type Answer = Extract<ServerLiveMessage, { ref: string }>;

/** Sends the frame `frameFor(ref)` makes and waits for the answer of one of `types` that names that ref. */
async function ask<T extends Answer["type"]>(
  live: LiveClient,
  frameFor: (ref: string) => object,
  types: readonly T[],
): Promise<Extract<Answer, { type: T }>> {
  const ref = crypto.randomUUID();
  live.socket.send(JSON.stringify(frameFor(ref)));
  const isAnswer = (m: ServerLiveMessage): m is Extract<Answer, { type: T }> =>
    "ref" in m && m.ref === ref && (types as readonly string[]).includes(m.type);
  await live.waitFor((received) => received.some(isAnswer), 10_000);
  const answer = live.received.find(isAnswer);
  if (!answer) throw new Error("no answer");
  return answer;
}

/** Sends `body` as a `send` frame: answered `sent` or `send_failed`. */
export const sendFrame = (live: LiveClient, body: unknown) => ask(live, (ref) => ({ type: "send", ref, body }), ["sent", "send_failed"]);

/** Deletes `id` by a `delete` frame: answered `deleted` or `delete_failed`. */
export const deleteFrame = (live: LiveClient, id: unknown) =>
  ask(live, (ref) => ({ type: "delete", ref, id }), ["deleted", "delete_failed"]);

/** The device's live socket, resumed from the start and current. */
export async function readyLive(device: Device): Promise<LiveClient> {
  const live = await device.live();
  await live.waitFor((r) => r.some((m) => m.type === "ready"));
  return live;
}
