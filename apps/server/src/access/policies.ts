/**
 * The one answer to "may this actor do this to that". Routes, services, uploads, downloads, the live socket and its
 * replay ask here, with the facts they read (the actor's membership of the space, who wrote a message, whose a device
 * is), never by comparing ids or roles on their own. What is refused and what does not exist get the same answer
 * where telling them apart would say too much (a discussion one is not in is "No such discussion").
 */
import type { SpaceMembersTable, SpacesTable, UsersTable } from "../db/schema.ts";

/** Who asks: a signed-in user, or nobody (an anonymous request). */
export type Actor = { userId: string } | undefined;

/** The actor's membership of a space, as the access repository reads it (undefined: none, left, or ended). */
export interface MembershipFacts {
  kind: SpacesTable["kind"];
  role: SpaceMembersTable["role"];
}

export type Action =
  /** Read a space's messages (a day of the personal space, a discussion), live or replayed. */
  | "space.read"
  | "message.send"
  | "message.delete"
  | "day.clear"
  | "file.read"
  | "file.upload"
  | "discussion.rename"
  | "discussion.end"
  | "discussion.extend"
  | "discussion.leave"
  | "discussion.remove_member"
  | "device.rename"
  | "device.sign_out"
  /** Use the admin page and its routes: only an enabled admin account (anyone else gets the page's 404). */
  | "admin.act"
  /** Disable or delete an account from the admin page: never the admin's own, which would lock them out. */
  | "admin.change_account"
  /** Make the account's next key epoch as a rotation: only a device that holds the current one. */
  | "key.rotate"
  /** Make the next key epoch from nothing (Start over): only while no other device holds the current one and no recovery code is set. */
  | "key.start_over"
  /** Answer, approve or deny another device's check-code request: only a device that holds the current epoch. */
  | "key.approve_device"
  /** Make, replace or remove the account's recovery code: only a device that holds the current epoch. */
  | "key.manage_recovery"
  /** Add oneself to the account's epochs with what the recovery code opened: only with the proof the code gives. */
  | "key.recover";

export interface Subject {
  /** The actor's membership of the space the action is about. */
  membership?: MembershipFacts | undefined;
  /** The author of the message the action is about. */
  authorId?: string;
  /** The user whose device the action is about. */
  deviceOwnerId?: string;
  /** The account whose keys the action is about. */
  keyOwnerId?: string;
  /** Who holds the account's current key epoch: the asking device, any other signed-in device of the account. */
  keyHolders?: { self: boolean; others: boolean };
  /** Whether the asking device showed the proof derived from the account's recovery code. */
  recoveryProof?: boolean;
  /** Whether the account has a recovery code, which Start over would erase. */
  recoveryCodeSet?: boolean;
  /** This session asked to start over and no device holding the key cancelled it within 24 hours (decision 021). */
  startOverWaited?: boolean;
  /**
   * Whether signing these devices out would leave no device holding the account's current key while the asking one
   * holds none: a locked device could then Start over (issue 42).
   */
  endsLastKeyHolder?: boolean;
  /** The actor's own account: its role, and whether it is disabled. */
  actorStanding?: { role: UsersTable["role"]; disabled: boolean } | undefined;
  /** The account an admin action is about. */
  accountId?: string;
  /** The role of the member a creator removes from a discussion (known once the member is found). */
  removedRole?: SpaceMembersTable["role"];
}

const member = (subject: Subject) => subject.membership !== undefined;
const creator = (subject: Subject) => subject.membership?.role === "owner";
const inDiscussion = (subject: Subject) => subject.membership?.kind === "discussion";

const rules: Record<Action, (actor: { userId: string }, subject: Subject) => boolean> = {
  "space.read": (_, s) => member(s),
  "message.send": (_, s) => member(s),
  // One's own message anywhere one still belongs; in a discussion, its creator may delete anyone's.
  "message.delete": (actor, s) => member(s) && (s.authorId === actor.userId || (inDiscussion(s) && creator(s))),
  "day.clear": (_, s) => s.membership?.kind === "personal",
  "file.read": (_, s) => member(s),
  "file.upload": (_, s) => member(s),
  "discussion.rename": (_, s) => inDiscussion(s) && creator(s),
  "discussion.end": (_, s) => inDiscussion(s) && creator(s),
  // Any member may extend (their plan decides whether they can pay for it).
  "discussion.extend": (_, s) => inDiscussion(s),
  // The creator ends a discussion instead of leaving it.
  "discussion.leave": (_, s) => inDiscussion(s) && !creator(s),
  // Its creator removes members, never themselves (they end the discussion instead).
  "discussion.remove_member": (_, s) => inDiscussion(s) && creator(s) && s.removedRole !== "owner",
  "device.rename": (actor, s) => s.deviceOwnerId === actor.userId,
  // Only a device that holds the key (or could, with the recovery code, by recovering first) signs out the last that do.
  "device.sign_out": (actor, s) => s.deviceOwnerId === actor.userId && s.endsLastKeyHolder !== true,
  "admin.act": (_, s) => s.actorStanding?.role === "admin" && !s.actorStanding.disabled,
  // Asked after `admin.act`, for what would lock the admin out of their own account.
  "admin.change_account": (actor, s) => s.accountId !== undefined && s.accountId !== actor.userId,
  "key.rotate": (actor, s) => s.keyOwnerId === actor.userId && s.keyHolders?.self === true,
  // With a recovery code set, the way back is the code (key.recover), never erasing it by starting over.
  "key.start_over": (actor, s) =>
    s.keyOwnerId === actor.userId && (s.keyHolders?.others === false || s.startOverWaited === true) && s.recoveryCodeSet === false,
  "key.approve_device": (actor, s) => s.keyOwnerId === actor.userId && s.keyHolders?.self === true,
  "key.manage_recovery": (actor, s) => s.keyOwnerId === actor.userId && s.keyHolders?.self === true,
  "key.recover": (actor, s) => s.keyOwnerId === actor.userId && s.recoveryProof === true,
};

export function may(actor: Actor, action: Action, subject: Subject): boolean {
  return actor !== undefined && rules[action](actor, subject);
}

export const ACTIONS = Object.keys(rules).filter((name): name is Action => name in rules);
