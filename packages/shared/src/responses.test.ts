import { describe, expect, it } from "vitest";
import { pairServerMessageSchema } from "./pairing-responses.ts";
import { liveEventEnvelopeSchema, serverLiveMessageSchema } from "./responses.ts";

const message = {
  id: "m1",
  type: "text",
  content: "hi",
  filename: "",
  file_url: "",
  date: "5/4/2026",
  time: "3:07 PM",
  url: "",
  user_id: "u1",
  date_message_id: "d1",
  timestamps: 1,
};

const day = {
  id: "d1",
  date: "5/4/2026",
  last_message_time: "3:07 PM",
  last_message_type: "text",
  last_message: "hi",
  count_messages: 1,
  user_id: "u1",
  timestamps: 1,
};

describe("live frames", () => {
  it("accept what the server sends and keep fields a newer server adds out of the result", () => {
    const frame = { type: "event", seq: 3, event: { kind: "message.created", message: { ...message, extra: 1 }, day } };
    expect(serverLiveMessageSchema.parse(frame)).toEqual({ type: "event", seq: 3, event: { kind: "message.created", message, day } });
    expect(serverLiveMessageSchema.parse({ type: "ready", seq: 0 })).toEqual({ type: "ready", seq: 0 });
  });

  it("refuse a frame that is not what it says, and still let a client count past an event kind it does not know", () => {
    expect(serverLiveMessageSchema.safeParse({ type: "event", seq: 3, event: { kind: "message.created", message: {} } }).success).toBe(
      false,
    );
    expect(serverLiveMessageSchema.safeParse({ type: "ready", seq: -1 }).success).toBe(false);
    const future = { type: "event", seq: 4, event: { kind: "day.renamed" } };
    expect(serverLiveMessageSchema.safeParse(future).success).toBe(false);
    expect(liveEventEnvelopeSchema.parse(future).seq).toBe(4);
  });

  it("cover each outcome of the pairing channel", () => {
    for (const frame of [
      { type: "waiting", expires_in: 1 },
      { type: "approved", token: "t" },
      { type: "denied" },
      { type: "expired" },
      { type: "failed" },
    ]) {
      expect(pairServerMessageSchema.parse(frame)).toEqual(frame);
    }
    expect(pairServerMessageSchema.safeParse({ type: "approved" }).success).toBe(false);
  });
});
