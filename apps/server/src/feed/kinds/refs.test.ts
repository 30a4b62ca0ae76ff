/** Every kind's ref is read back as the change it was written from; a ref this version cannot read is skipped. */
import { describe, expect, it } from "vitest";
import type { ChangeKind } from "../change.ts";
import { allChangeKinds, changeOf, refOf } from "./index.ts";
import type { ChangeOf } from "./kind.ts";

/** One change of each kind: a kind without one fails the typecheck. */
const samples: { [K in ChangeKind]: ChangeOf<K> } = {
  "day.upserted": { kind: "day.upserted", dayId: "d1" },
  "message.created": { kind: "message.created", messageId: "m1" },
  "messages.deleted": { kind: "messages.deleted", ids: ["m1", "m2"] },
  "user.updated": { kind: "user.updated", userId: "u1" },
  "device.signed_in": { kind: "device.signed_in", sessionId: "s1" },
  "device.signed_out": { kind: "device.signed_out", sessionId: "s1" },
  "device.renamed": { kind: "device.renamed", sessionId: "s1" },
  "discussion.upserted": { kind: "discussion.upserted", discussionId: "x1" },
  "discussion.closed": { kind: "discussion.closed", discussionId: "x:1", reason: "removed" },
  "discussion.message.created": { kind: "discussion.message.created", messageId: "m3" },
  "discussion.messages.deleted": { kind: "discussion.messages.deleted", discussionId: "x1", ids: ["m3"] },
  "key.epoch_created": { kind: "key.epoch_created", epoch: 3 },
  "key.rotation_due": { kind: "key.rotation_due", epoch: 4 },
  "key.start_over_changed": { kind: "key.start_over_changed", userId: "u1" },
  "key.requested": { kind: "key.requested", requestId: "r1" },
  "key.request_updated": { kind: "key.request_updated", requestId: "r1" },
  "discussion.join_requested": { kind: "discussion.join_requested", discussionId: "x1", requestId: "r2" },
  "discussion.join_updated": { kind: "discussion.join_updated", discussionId: "x1", requestId: "r2", state: "confirmed" },
  "discussion.member_joined": { kind: "discussion.member_joined", discussionId: "x1", memberId: "m1", generation: 2, keyId: "k1" },
  "discussion.member_left": { kind: "discussion.member_left", discussionId: "x1", memberId: "m1", keyIds: ["k1", "k2"] },
  "discussion.rotated": { kind: "discussion.rotated", discussionId: "x1", generation: 3, senderKeyId: "k2" },
};

describe("change refs", () => {
  it.each(allChangeKinds)("%s is read back as written", (kind) => {
    const change = samples[kind];
    expect(changeOf({ kind, ref: refOf(change) })).toEqual(change);
  });

  it("skips a kind or ref this version cannot read", () => {
    expect(changeOf({ kind: "message.edited", ref: "m1" })).toBeUndefined();
    expect(changeOf({ kind: "toString", ref: "m1" })).toBeUndefined();
    expect(changeOf({ kind: "messages.deleted", ref: "not json" })).toBeUndefined();
    expect(changeOf({ kind: "key.rotation_due", ref: "0" })).toBeUndefined();
    expect(changeOf({ kind: "discussion.closed", ref: "x1:vanished" })).toBeUndefined();
    expect(changeOf({ kind: "discussion.rotated", ref: '{"discussion_id":"x1","generation":"3"}' })).toBeUndefined();
    expect(changeOf({ kind: "discussion.member_left", ref: "null" })).toBeUndefined();
  });
});
