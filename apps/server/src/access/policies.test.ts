/** Every action against every kind of actor: the whole permission vocabulary in one table. */
import { describe, expect, it } from "vitest";
import { ACTIONS, type Action, type Actor, may, type Subject } from "./policies.ts";

const ME = { userId: "me" };

/**
 * The actors, as the facts the server reads about them: the owner of a personal space, a discussion's creator, a
 * member, a member who was removed (or left: no membership any more), another account, and nobody signed in. In a
 * personal space the owner is also the author of what is asked about; in a discussion, "member" asks about their own
 * message and "creator" about someone else's. For the account's keys: the owner's device holds the current epoch
 * and no other does, the creator's and another device do, the member's device and no other do not; the removed and
 * the other actor ask about another account's keys. The owner's and the creator's devices showed the recovery code's
 * proof, the member's did not.
 */
type Who = "owner" | "creator" | "member" | "removed" | "other" | "anonymous";

const facts: Record<Who, { actor: Actor; subject: Subject }> = {
  owner: {
    actor: ME,
    subject: {
      membership: { kind: "personal", role: "owner" },
      authorId: "me",
      deviceOwnerId: "me",
      keyOwnerId: "me",
      keyHolders: { self: true, others: false },
      recoveryProof: true,
      recoveryCodeSet: false,
      actorStanding: { role: "admin", disabled: false },
      accountId: "someone",
    },
  },
  creator: {
    actor: ME,
    subject: {
      membership: { kind: "discussion", role: "owner" },
      authorId: "someone",
      deviceOwnerId: "me",
      keyOwnerId: "me",
      keyHolders: { self: true, others: true },
      recoveryProof: true,
      actorStanding: { role: "admin", disabled: true },
      accountId: "me",
    },
  },
  member: {
    actor: ME,
    subject: {
      membership: { kind: "discussion", role: "member" },
      authorId: "me",
      deviceOwnerId: "me",
      keyOwnerId: "me",
      keyHolders: { self: false, others: false },
      recoveryProof: false,
      recoveryCodeSet: false,
      actorStanding: { role: "user", disabled: false },
    },
  },
  removed: {
    actor: ME,
    subject: {
      membership: undefined,
      authorId: "me",
      deviceOwnerId: "someone",
      keyOwnerId: "someone",
      keyHolders: { self: true, others: false },
      recoveryProof: true,
    },
  },
  other: {
    actor: { userId: "other" },
    subject: {
      membership: undefined,
      authorId: "me",
      deviceOwnerId: "me",
      keyOwnerId: "me",
      keyHolders: { self: true, others: false },
      recoveryProof: true,
    },
  },
  anonymous: {
    actor: undefined,
    subject: {
      membership: { kind: "personal", role: "owner" },
      authorId: "me",
      deviceOwnerId: "me",
      keyOwnerId: "me",
      keyHolders: { self: true, others: false },
      recoveryProof: true,
      actorStanding: { role: "admin", disabled: false },
      accountId: "someone",
    },
  },
};

const WHO: Who[] = ["owner", "creator", "member", "removed", "other", "anonymous"];

/** Who may, per action; everyone not listed may not. */
const allowed: Record<Action, Who[]> = {
  "space.read": ["owner", "creator", "member"],
  "message.send": ["owner", "creator", "member"],
  "message.delete": ["owner", "creator", "member"],
  "day.clear": ["owner"],
  "file.read": ["owner", "creator", "member"],
  "file.upload": ["owner", "creator", "member"],
  "discussion.rename": ["creator"],
  "discussion.end": ["creator"],
  "discussion.extend": ["creator", "member"],
  "discussion.leave": ["member"],
  "discussion.remove_member": ["creator"],
  "device.rename": ["owner", "creator", "member"],
  "device.sign_out": ["owner", "creator", "member"],
  "admin.act": ["owner"],
  "admin.change_account": ["owner"],
  "key.rotate": ["owner", "creator"],
  "key.start_over": ["owner", "member"],
  "key.approve_device": ["owner", "creator"],
  "key.manage_recovery": ["owner", "creator"],
  "key.recover": ["owner", "creator"],
};

describe("policies", () => {
  it("the table names every action", () => {
    expect(Object.keys(allowed).sort()).toEqual([...ACTIONS].sort());
  });

  const rows = ACTIONS.flatMap((action) => WHO.map((who) => [action, who, allowed[action].includes(who)] as const));
  it.each(rows)("%s by %s: %s", (action, who, expected) => {
    expect(may(facts[who].actor, action, facts[who].subject)).toBe(expected);
  });

  it("a discussion member may not delete another member's message; its creator may", () => {
    const membership = { kind: "discussion", role: "member" } as const;
    expect(may(ME, "message.delete", { membership, authorId: "someone" })).toBe(false);
    expect(may(ME, "message.delete", { membership: { ...membership, role: "owner" }, authorId: "someone" })).toBe(true);
  });

  it("a discussion's creator may remove a member, never themselves", () => {
    const membership = { kind: "discussion", role: "owner" } as const;
    expect(may(ME, "discussion.remove_member", { membership, removedRole: "member" })).toBe(true);
    expect(may(ME, "discussion.remove_member", { membership, removedRole: "owner" })).toBe(false);
  });

  it("an admin may not disable or delete their own account from the admin page", () => {
    expect(may(ME, "admin.change_account", { accountId: "me" })).toBe(false);
    expect(may(ME, "admin.change_account", { accountId: "someone" })).toBe(true);
  });

  it("in a personal space only one's own messages are deleted, and a discussion's rules never apply there", () => {
    expect(may(ME, "message.delete", { membership: { kind: "personal", role: "owner" }, authorId: "someone" })).toBe(false);
    expect(may(ME, "discussion.end", { membership: { kind: "personal", role: "owner" } })).toBe(false);
  });
});
