/**
 * How a discussion ends, for everyone (its creator's end, its expiry) or for one person (a leave, a removal, an
 * account's deletion): who is told what, and what is erased with it.
 */
import type { DepartureReason } from "@daysync/shared";
import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import type { SpacesRepository } from "../spaces/index.ts";
import { recordClosed, recordUpserted } from "./discussion-changes.ts";
import type { DiscussionsRepository } from "./discussions.repository.ts";
import { recordRoomDeparture } from "./room-entry.ts";
import type { RoomsRepository } from "./rooms.repository.ts";

export interface DiscussionEndingDeps {
  clock: Clock;
  unitOfWork: UnitOfWork;
  discussions: DiscussionsRepository;
  /** Encrypted discussions' rows: a leave from one is told with the member keys that left. */
  rooms: RoomsRepository;
  /** The one writer of spaces and their members. */
  spaces: SpacesRepository;
  /** Removes a file's bytes from storage (after the rows that named it are deleted). */
  removeFile: (uploadId: string) => Promise<void>;
  /** Removes the unfinished uploads into the discussion, once it is deleted (none can be started into it then). */
  removeUnfinishedUploads: (spaceId: string) => Promise<void>;
  /** Erased in its transaction, owned by modules above this one: its uploads (ids returned), messages, or an author's. */
  content: {
    eraseUploads: (trx: Db, spaceId: string) => Promise<string[]>;
    eraseMessages: (trx: Db, spaceId: string) => Promise<void>;
    eraseAuthor: (trx: Db, spaceId: string, authorId: string) => Promise<string[]>;
  };
}

export function createDiscussionEnding(deps: DiscussionEndingDeps) {
  const { clock, unitOfWork, discussions: repo, spaces } = deps;

  /**
   * Ends the discussion for everyone: each member is told why (`discussion.closed`) in the transaction that
   * deletes the space with its members, messages and upload rows; then its files' bytes are removed, and the
   * uploads into it that had not finished. The creator's end and the sweeper's expiry both come here. An expiry
   * finds nothing to do if the end moved meanwhile.
   */
  async function close(spaceId: string, reason: "ended" | "expired"): Promise<boolean> {
    const now = clock.now();
    const files = await unitOfWork.forSpace(spaceId, async (work, memberIds) => {
      const locked = repo.in(work.trx);
      const row = await locked.find(spaceId);
      if (!row || (reason === "expired" && row.ends_at > now)) return undefined;
      await recordClosed(work, spaceId, memberIds, reason);
      if (!(await locked.isDiscussion(spaceId))) return [];
      const uploads = await deps.content.eraseUploads(work.trx, spaceId);
      await deps.content.eraseMessages(work.trx, spaceId);
      await spaces.in(work.trx).deleteSpace(spaceId);
      return uploads;
    });
    if (!files) return false;
    for (const id of files) await deps.removeFile(id);
    await deps.removeUnfinishedUploads(spaceId);
    return true;
  }

  return {
    close,

    /** A member stops being one (`left` by themselves, or `removed` by the creator): the others are told, and so are they. */
    async depart(spaceId: string, memberRowId: string, userId: string, reason: DepartureReason): Promise<void> {
      const now = clock.now();
      await unitOfWork.forSpace(spaceId, async (work, memberIds) => {
        if (!memberIds.includes(userId)) return;
        await spaces.in(work.trx).markLeft(memberRowId, reason, now);
        await recordUpserted(
          work,
          repo,
          spaceId,
          memberIds.filter((id) => id !== userId),
        );
        await recordClosed(work, spaceId, [userId], reason);
        await recordRoomDeparture(work, deps.rooms, { spaceId, memberId: memberRowId, userId, memberIds });
      });
    },

    /**
     * Account deletion: the discussions the person created end for everyone (as End does); from the others they
     * leave (as Leave does), and their messages there go for every member, with their member row.
     */
    async forgetAccount(userId: string): Promise<void> {
      for (const spaceId of await repo.createdBy(userId)) await close(spaceId, "ended");
      for (const spaceId of await repo.joinedBy(userId)) {
        await unitOfWork.forSpace(spaceId, async (work, memberIds) => {
          const others = memberIds.filter((id) => id !== userId);
          const wasActive = memberIds.includes(userId);
          const mine = await repo.in(work.trx).memberRowOf(spaceId, userId);
          // Told before the rows go: a room's remaining members rotate without this account's keys.
          if (wasActive && mine) await recordRoomDeparture(work, deps.rooms, { spaceId, memberId: mine.id, userId, memberIds });
          await deps.rooms.in(work.trx).forgetAccount(spaceId, userId);
          const ids = await deps.content.eraseAuthor(work.trx, spaceId, userId);
          await spaces.in(work.trx).forgetMember(spaceId, userId);
          if (ids.length > 0) {
            const deleted = { kind: "discussion.messages.deleted", discussionId: spaceId, ids } as const;
            await work.record(others, deleted);
          }
          if (wasActive) await recordUpserted(work, repo, spaceId, others);
        });
      }
    },

    /** Ends every discussion past its end (the sweeper); returns how many. */
    async closeExpired(batch = 100): Promise<number> {
      let closed = 0;
      for (;;) {
        const ids = await repo.endedIds(clock.now(), batch);
        let inBatch = 0;
        for (const id of ids) if (await close(id, "expired")) inBatch++;
        closed += inBatch;
        if (ids.length < batch || inBatch === 0) return closed;
      }
    },
  };
}
