/**
 * Resumable uploads (tus protocol) that become file messages when they finish, in the uploader's personal space
 * or, with `discussion_id` in its metadata, in a discussion. Every tus request is checked against the session: an
 * unfinished upload is its uploader's only, and only while they may write its space; a finished one is its
 * space's, read by whoever the access repository says is a member.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  API,
  dayKeyOf,
  formatFileSize,
  isRoomUpload,
  isSealedUpload,
  PREMIUM_TYPE_ID,
  type RoomUploadMetadata,
  roomUploadMetadataSchema,
  type SealedUploadMetadata,
  sealedUploadMetadataSchema,
  type UploadMetadata,
  uploadMetadataSchema,
} from "@daysync/shared";
import { type Locker, MemoryLocker, Server } from "@tus/server";
import { may } from "../../access/policies.ts";
import type { Clock } from "../../clock.ts";
import type { Config } from "../../config/config.ts";
import type { SessionAuth } from "../../http/auth.ts";
import { AppError, codeForStatus, conflict, errorBody, notFound, unauthenticated } from "../../http/errors.ts";
import { parse } from "../../http/validate.ts";
import type { FileStorage, UnfinishedUpload } from "../../storage/file-storage.ts";
import type { SessionsRepository } from "../accounts/index.ts";
import type { KeysRepository } from "../keys/index.ts";
import { assertPlausibleDay, assertSealedUnderCurrentEpoch, encryptionRequired, type MessagesService } from "../messages/index.ts";
import type { PlansRepository } from "../plans/index.ts";
import type { AccessRepository } from "../spaces/index.ts";
import { createFinishedFiles } from "./finished-files.ts";
import { assertSealedLength, cutBackTo, sealedLimit } from "./sealed-records.ts";
import { declaresSealed, readUploadMetadata } from "./upload-metadata.ts";
import type { UploadsRepository } from "./uploads.repository.ts";

type TusRequest = Parameters<NonNullable<ConstructorParameters<typeof Server>[0]["onUploadCreate"]>>[0];

const formatSize = formatFileSize;

const idInUse = () => conflict("conflict", "That message id is already in use.");

/** What tus sends back when a hook throws: our JSON error body with its status. */
const tusError = (error: AppError) => ({
  status_code: error.status,
  body: JSON.stringify(errorBody(error.code, error.message, error.field)),
});

export function createUploadsService(deps: {
  storage: FileStorage;
  uploads: UploadsRepository;
  plans: PlansRepository;
  /** Where a file message goes, in a day or a discussion. */
  messages: MessagesService;
  access: AccessRepository;
  /** Asked again when the last byte arrives: the device may have been signed out while it sent them. */
  sessions: Pick<SessionsRepository, "exists">;
  /** The account's current epoch, which a sealed upload must be sealed under. */
  keys: Pick<KeysRepository, "account">;
  clock: Clock;
  config: Pick<Config, "maxFileBytes" | "storageBytes" | "trustProxy">;
  /** Who may write an upload now, shared between processes; default: tus's own, in this process's memory. */
  locker?: Locker;
  /** Told of each upload that became its file message, with its size (the metrics count them). */
  onFinished?: ((bytes: number) => void) | undefined;
}) {
  const { storage, uploads, plans, messages, access, sessions, keys, clock, config } = deps;
  const isPremium = async (userId: string) => (await plans.currentPlanOf(userId))?.subscription_type_id === PREMIUM_TYPE_ID;
  const requestAuth = new WeakMap<IncomingMessage, SessionAuth>();
  const locker = deps.locker ?? new MemoryLocker();
  const { clearFile, sealedFile, roomFile } = createFinishedFiles({ storage, clock });

  function authOf(req: TusRequest): SessionAuth {
    const node = (req as { runtime?: { node?: { req: IncomingMessage } } }).runtime?.node?.req;
    const auth = node && requestAuth.get(node);
    if (!auth) throw tusError(unauthenticated());
    return auth;
  }

  async function limitFor(userId: string): Promise<number> {
    return (await isPremium(userId)) ? config.maxFileBytes.premium : config.maxFileBytes.free;
  }

  async function storageLimitFor(userId: string): Promise<number> {
    return (await isPremium(userId)) ? config.storageBytes.premium : config.storageBytes.free;
  }

  /**
   * Bytes the user holds: live files, and the declared length of each upload still running, in the spaces they
   * are a member of. What they left in a discussion they were removed from or left is the discussion's.
   */
  async function storageUsed(userId: string): Promise<number> {
    const now = clock.now();
    const [live, spaces, unfinished] = await Promise.all([
      uploads.liveBytes(userId, now),
      access.spaceIdsOf(userId, now),
      storage.unfinishedUploads(),
    ]);
    const held = unfinished.filter((u) => u.metadata.user_id === userId && spaces.has(u.metadata.discussion_id || userId));
    return live + held.reduce((sum, u) => sum + u.size, 0);
  }

  /** Refuses, before any byte is stored, a file that would take the user over their plan's storage. */
  async function assertFits(userId: string, size: number): Promise<void> {
    const [limit, used] = await Promise.all([storageLimitFor(userId), storageUsed(userId)]);
    if (used + size > limit) {
      throw tusError(
        new AppError(
          413,
          "storage_full",
          `Not enough storage for this file: your plan allows ${formatSize(limit)} of files in total and ${formatSize(used)} is in use.`,
        ),
      );
    }
  }

  /** Upload metadata through its contract; `read` may refuse it too (readUploadMetadata). */
  function checkedMetadata(read: () => Record<string, string | null>): UploadMetadata | SealedUploadMetadata | RoomUploadMetadata {
    try {
      const values = read();
      if (isRoomUpload(values)) return parse(roomUploadMetadataSchema, values);
      return isSealedUpload(values) ? parse(sealedUploadMetadataSchema, values) : parse(uploadMetadataSchema, values);
    } catch (error) {
      throw error instanceof AppError ? tusError(error) : error;
    }
  }

  /** Work on one upload's file under its lock, as a tus request would hold it (an older PATCH is asked to stop). */
  async function underLock(id: string, work: () => Promise<void>): Promise<void> {
    const lock = locker.newLock(id);
    await lock.lock(new AbortController().signal, () => undefined);
    try {
      await work();
    } finally {
      await lock.unlock();
    }
  }

  async function removeUnfinished(which: (upload: UnfinishedUpload) => boolean): Promise<void> {
    const unfinished = (await storage.unfinishedUploads()).filter(which);
    await Promise.allSettled(unfinished.map(({ id }) => underLock(id, () => storage.remove(id))));
  }

  /**
   * A PATCH cut off mid-record leaves part of a sealed record: cut the file back to whole records, so the offset a
   * device resumes from is a record boundary and it seals and sends the whole record again (docs/protocol/encryption.md, "File records").
   */
  function cutBackToRecords(id: string, length: number): Promise<void> {
    return underLock(id, async () => {
      const stored = await storage.size(id);
      const whole = stored === undefined ? undefined : cutBackTo(stored, length);
      if (whole !== undefined) await storage.truncate(id, whole);
    });
  }

  /** A sealed upload goes in only under the account's current epoch and not while a rotation is due (409s). */
  async function assertCurrentEpoch(userId: string, epoch: number): Promise<void> {
    const account = await keys.account(userId);
    assertSealedUnderCurrentEpoch(epoch, { keyEpoch: account?.epoch ?? null, keyRotationDue: (account?.rotationDueAt ?? null) !== null });
  }

  /**
   * A sealed upload whose epoch is no longer the account's current one would be refused at its last byte: its PATCHes
   * are refused from then on, and it is removed, so the device seals it again under the next epoch without sending
   * the rest of the bytes first.
   */
  async function refuseIfEpochMoved(id: string, userId: string, metadata: Record<string, string | null>): Promise<void> {
    try {
      await assertCurrentEpoch(userId, Number(metadata.epoch));
    } catch (error) {
      await underLock(id, () => storage.remove(id));
      throw error instanceof AppError ? tusError(error) : error;
    }
  }

  /** Our errors as tus answers them. */
  async function inTus<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw error instanceof AppError ? tusError(error) : error;
    }
  }

  const tus = new Server({
    path: API.uploads,
    datastore: storage.datastore,
    locker,
    relativeLocation: true,
    allowedOrigins: [],
    respectForwardedHeaders: config.trustProxy !== false,
    disableTerminationForFinishedUploads: true,
    // A sealed upload declares its sealed length: the plan's limit is the sealed length of a file at the limit.
    async maxSize(req) {
      const limit = await limitFor(authOf(req).userId);
      return declaresSealed(req.headers.get("upload-metadata")) ? sealedLimit(limit) : limit;
    },

    async onIncomingRequest(req, uploadId) {
      const { userId } = authOf(req);
      if (req.method === "POST" || req.method === "OPTIONS") return;
      const upload = await storage.datastore.getUpload(uploadId).catch(() => undefined);
      if (!upload || upload.metadata?.user_id !== userId) throw tusError(notFound("upload"));
      const now = clock.now();
      const finished = await uploads.find(uploadId);
      const spaceId = finished?.space_id ?? (upload.metadata?.discussion_id || userId);
      if (!may({ userId }, "file.upload", { membership: await access.membership(userId, spaceId, now) }))
        throw tusError(notFound("upload"));
      // A finished upload is its message's file: it goes when the message expires, swept yet or not.
      if (finished && !(await uploads.findLive(uploadId, now))) throw tusError(notFound("upload"));
      const resumes = req.method === "HEAD" || req.method === "PATCH";
      const metadata = upload.metadata ?? {};
      if (!finished && resumes && upload.size !== undefined && (isSealedUpload(metadata) || isRoomUpload(metadata))) {
        await cutBackToRecords(uploadId, upload.size);
        // A room's file is checked against its generation by the send at the last byte.
        if (req.method === "PATCH" && isSealedUpload(metadata)) await refuseIfEpochMoved(uploadId, userId, metadata);
      }
    },

    async onUploadCreate(req, upload) {
      const { userId } = authOf(req);
      if (upload.sizeIsDeferred) throw tusError(new AppError(400, "validation", "Upload-Length is required."));
      // Read again from the header: tus's own reading hides bytes that are not UTF-8.
      const meta = checkedMetadata(() => readUploadMetadata(req.headers.get("upload-metadata")));
      const sealed = "epoch" in meta;
      await inTus(async () => {
        assertPlausibleDay(dayKeyOf(meta.date), clock.now());
        // An encrypted discussion's generation is checked by the send at the last byte (the file goes if it moved).
        if ("generation" in meta) assertSealedLength(upload.size ?? 0);
        if (sealed) {
          assertSealedLength(upload.size ?? 0);
          await assertCurrentEpoch(userId, meta.epoch);
        } else if (!meta.discussion_id && ((await keys.account(userId))?.epoch ?? null) !== null) {
          // Refused before any byte comes; the message's send checks it again on the row it locks.
          throw encryptionRequired();
        }
      });
      const discussionId = sealed ? undefined : meta.discussion_id;
      const spaceId = discussionId ?? userId;
      if (discussionId) await inTus(() => messages.memberOf(userId, spaceId));
      // Any message already there, one's own included: this file would hang off it unseen yet be served and counted.
      if (await uploads.messageIdInUse(meta.message_id)) throw tusError(idInUse());
      await assertFits(userId, upload.size ?? 0);
      return { metadata: { ...upload.metadata, user_id: userId } };
    },

    async onUploadFinish(req, upload) {
      const auth = authOf(req);
      const { userId } = auth;
      // Signed out (on any process) while the bytes came: nothing more from that device, not even this file.
      if (!(await sessions.exists(auth.sessionId))) {
        await storage.remove(upload.id);
        throw tusError(unauthenticated());
      }
      const meta = checkedMetadata(() => upload.metadata ?? {});
      const file = await inTus(() => {
        if ("generation" in meta) return roomFile(userId, upload, meta);
        return "epoch" in meta ? sealedFile(userId, upload, meta) : clearFile(userId, upload, meta);
      });
      await uploads.insert(file.row);
      const fileMessage = file.message;
      const discussionId = file.discussionId;
      // A send that finds the id taken answers the message there: this upload's own when its finish is retried,
      // else one sent with that id while the upload ran.
      const assertOwn = (stored: { file_url: string }) => {
        if (stored.file_url !== fileMessage.file_url) throw idInUse();
      };
      try {
        if (discussionId) {
          // The send checks the membership again and tells every member.
          const { message, created } = await messages.sendToDiscussion(auth, discussionId, fileMessage);
          if (!created) assertOwn(message);
        } else {
          const { message, created } = await messages.send(auth, fileMessage);
          if (!created) assertOwn(message);
        }
      } catch (error) {
        // Only this upload goes: the message id may be another user's, and so may an upload carrying it. A sealed
        // file refused because the epoch moved while it was sent goes too: tus cannot change its metadata (its key is
        // sealed under the old epoch), so the device sends it again, sealed under the new one.
        await uploads.remove(upload.id, userId);
        await storage.remove(upload.id);
        throw error instanceof AppError ? tusError(error) : error;
      }
      deps.onFinished?.(upload.size ?? 0);
      return {};
    },

    /** tus answers its own errors in plain text; ours are JSON, and what tus leaves unimplemented is a 400, not a 501. */
    async onResponseError(req, error) {
      if (!("status_code" in error) || error.body.startsWith("{")) return undefined;
      if (error.status_code === 413) {
        // Creating an upload is refused for its declared length; a PATCH only for bytes beyond that length.
        const message =
          req.method === "POST"
            ? `This file is too large: your plan allows files up to ${formatSize(await limitFor(authOf(req).userId))}.`
            : "This request sends more bytes than the upload's Upload-Length.";
        return { status_code: 413, body: JSON.stringify(errorBody("payload_too_large", message)) };
      }
      if (error.status_code === 501) {
        return { status_code: 400, body: JSON.stringify(errorBody("unsupported", `Not supported: ${error.body.trim()}`)) };
      }
      if (error.status_code >= 500) return undefined;
      return { status_code: error.status_code, body: JSON.stringify(errorBody(codeForStatus(error.status_code), error.body.trim())) };
    },
  });

  return {
    /** Passes a signed-in request to the tus protocol handler. */
    handle(auth: SessionAuth, req: IncomingMessage, res: ServerResponse): Promise<void> {
      requestAuth.set(req, auth);
      return tus.handle(req, res);
    },
    limitFor,
    formatSize,
    /** What the account's files take (unfinished uploads by their declared length) and what its plan allows. */
    async storageOf(userId: string): Promise<{ used: number; limit: number }> {
      const [used, limit] = await Promise.all([storageUsed(userId), storageLimitFor(userId)]);
      return { used, limit };
    },
    /** A finished upload whose message has not expired, in a space the user is a member of. */
    async liveFile(userId: string, id: string) {
      const now = clock.now();
      const row = await uploads.findLive(id, now);
      const membership = row && (await access.membership(userId, row.space_id, now));
      return row && may({ userId }, "file.read", { membership }) ? row : undefined;
    },
    /**
     * Deletes the unfinished uploads into a discussion that has ended, each under its upload lock as a tus
     * termination would be, so that a PATCH still streaming into one stops first. One whose lock is not won in
     * time is left to the sweep of abandoned uploads.
     */
    removeUnfinishedInto: (spaceId: string) => removeUnfinished((u) => u.metadata.discussion_id === spaceId),
    /** Deletes the unfinished uploads of a deleted account, as `removeUnfinishedInto` does. */
    removeUnfinishedBy: (userId: string) => removeUnfinished((u) => u.metadata.user_id === userId),
    /** Deletes the files of messages that are gone (retention). */
    async removeForMessages(messageIds: string[]): Promise<void> {
      for (const id of await uploads.takeOrphaned(messageIds)) await storage.remove(id);
    },
  };
}

export type UploadsService = ReturnType<typeof createUploadsService>;
