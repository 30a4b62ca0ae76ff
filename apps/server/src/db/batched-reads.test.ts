/** Reads of one event-loop turn (the replays' sequences, the sessions' look-ups), read in one statement. */
import { describe, expect, it } from "vitest";
import { batchedReads } from "./batched-reads.ts";

function reader(seqs: Record<string, number>) {
  const reads: string[][] = [];
  const read = batchedReads(async (userIds) => {
    reads.push(userIds);
    return new Map(userIds.filter((id) => id in seqs).map((id) => [id, seqs[id] ?? 0]));
  });
  return { currentSeq: (id: string) => read(id), reads };
}

describe("batchedReads", () => {
  it("reads the users asked for in one turn with one statement, each once, and nothing for a key with no row", async () => {
    const { currentSeq, reads } = reader({ ann: 7, bob: 3 });
    const answers = await Promise.all([currentSeq("ann"), currentSeq("bob"), currentSeq("ann"), currentSeq("gone")]);
    expect(answers).toEqual([7, 3, 7, undefined]);
    expect(reads).toEqual([["ann", "bob", "gone"]]);
  });

  it("reads again in a later turn, so a replay never gets a sequence read before it asked", async () => {
    const seqs = { ann: 1 };
    const { currentSeq, reads } = reader(seqs);
    expect(await currentSeq("ann")).toBe(1);
    seqs.ann = 2;
    expect(await currentSeq("ann")).toBe(2);
    expect(reads).toEqual([["ann"], ["ann"]]);
  });

  it("reads at most 500 users a statement", async () => {
    const ids = Array.from({ length: 1200 }, (_, i) => `u${i}`);
    const { currentSeq, reads } = reader(Object.fromEntries(ids.map((id, i) => [id, i])));
    const answers = await Promise.all(ids.map((id) => currentSeq(id)));
    expect(answers).toEqual(ids.map((_, i) => i));
    expect(reads.map((r) => r.length)).toEqual([500, 500, 200]);
  });

  it("fails every replay of the turn when the statement fails, and reads again next time", async () => {
    let fail = true;
    const currentSeq = batchedReads(async (userIds) => {
      if (fail) throw new Error("database gone");
      return new Map(userIds.map((id) => [id, 5]));
    });
    await expect(Promise.all([currentSeq("a"), currentSeq("b")])).rejects.toThrow("database gone");
    fail = false;
    expect(await currentSeq("a")).toBe(5);
  });
});
