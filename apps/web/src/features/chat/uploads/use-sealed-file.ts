/**
 * A sealed file message in the page (docs/protocol/encryption.md, "File records"): its image opened here into a Blob for the thumbnail
 * and the lightbox, whether the service worker controls the page (its route streams downloads and players), and a
 * download opened here into a Blob when it does not (a first load before the worker claims it, a hard reload). A
 * file of an encrypted discussion is the same with the room's keys (its link names the discussion).
 */
import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import { heldEpochsOf } from "../../../lib/sealing/device-keys.ts";
import { useRoom } from "../../../lib/sealing/room-hooks.ts";
import {
  type FileKeys,
  isUndecryptable,
  openWholeFile,
  plainSizeOf,
  roomFileOf,
  type SealedFileMessage,
  sealedFileLink,
  sealedFileOf,
  THUMBNAIL_LIMIT,
} from "../../../lib/sealing/sealed-files.ts";
import { useSessionServices } from "../../../lib/session-services.ts";

/** The keys that open `file`: its discussion's generations this device holds, or the account's epochs; undefined while unknown. */
function useFileKeys(file: SealedFileMessage | undefined): FileKeys | undefined {
  const { user, keys } = useSessionServices();
  const status = useSyncExternalStore(keys.subscribe, keys.getStatus);
  const room = useRoom(file?.discussion ?? "", file?.discussion !== undefined);
  const generations = room.data?.encrypted ? room.data.holding?.generations : undefined;
  // The generations held, by number: a room read again with nothing new keeps the same keys (no image opened again).
  const held = room.data === undefined ? undefined : [...(generations?.keys() ?? [])].join(",");
  return useMemo(() => {
    if (file?.discussion !== undefined) return held === undefined ? undefined : { room: generations ?? new Map() };
    const epochs = heldEpochsOf(status);
    return epochs ? { userId: user.id, epochs } : undefined;
  }, [file?.discussion, held, generations, status, user.id]);
}

/** A sealed file as its message's body shows it: its record, plain size and link, and whether its image opens here. */
export interface SealedFile {
  file: SealedFileMessage;
  size: number;
  href: string;
  /** An image small enough to open in the page for its thumbnail. */
  thumbnail: boolean;
}

/**
 * The sealed file a message names, or undefined when its record is not one this device can read (tampered). A
 * message of an encrypted discussion (`discussionId`, its `generation`) is a room file.
 */
export function useSealedFile(
  message: Parameters<typeof sealedFileOf>[0] & Partial<Pick<Parameters<typeof roomFileOf>[1], "generation" | "sender_key_id">>,
  discussionId?: string,
): SealedFile | undefined {
  return useMemo(() => {
    const file = discussionId && message.generation !== undefined ? roomFileOf(discussionId, message) : sealedFileOf(message);
    const size = file ? plainSizeOf(file.file_size) : undefined;
    if (!file || size === undefined) return undefined;
    return { file, size, href: sealedFileLink(file), thumbnail: message.type === "image" && size <= THUMBNAIL_LIMIT };
  }, [message, discussionId]);
}

/** An image's thumbnail: its object URL once opened (revoked when done), or why there is none. */
export type OpenedImage = { state: "opening" } | { state: "opened"; url: string } | { state: "undecryptable" } | { state: "unavailable" };

export function useOpenedImage(file: SealedFileMessage | undefined): OpenedImage {
  const keys = useFileKeys(file);
  const [image, setImage] = useState<OpenedImage>({ state: "opening" });
  useEffect(() => {
    if (!file || !keys) return;
    const abort = new AbortController();
    let url: string | undefined;
    setImage({ state: "opening" });
    openWholeFile(keys, file, abort.signal).then(
      ({ blob }) => {
        if (abort.signal.aborted) return;
        url = URL.createObjectURL(blob);
        setImage({ state: "opened", url });
      },
      (error: unknown) => {
        if (abort.signal.aborted) return;
        // Not fetched (offline, gone) is no proof of tampering: it shows as a file.
        setImage({ state: isUndecryptable(error) ? "undecryptable" : "unavailable" });
      },
    );
    return () => {
      abort.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [file, keys]);
  return image;
}

const subscribeController = (changed: () => void) => {
  navigator.serviceWorker?.addEventListener("controllerchange", changed);
  return () => navigator.serviceWorker?.removeEventListener("controllerchange", changed);
};

/** Whether the service worker controls this page, so its sealed-file route answers the page's links and players. */
export function useWorkerControls(): boolean {
  return useSyncExternalStore(
    subscribeController,
    () => Boolean(navigator.serviceWorker?.controller),
    () => false,
  );
}

/**
 * Saves a sealed file opened in this page, for when no worker controls it: where workers are blocked or not offered,
 * or before the worker has taken over a page loaded by a hard reload. Resolves false if it could not.
 */
export function useDownloadInPage(file: SealedFileMessage | undefined): () => Promise<boolean> {
  const keys = useFileKeys(file);
  return useCallback(async () => {
    if (!file || !keys) return false;
    try {
      const { blob, name } = await openWholeFile(keys, file);
      const url = URL.createObjectURL(blob);
      const link = Object.assign(document.createElement("a"), { href: url, download: name });
      link.click();
      // The download has taken the Blob by the time this runs; revoking at once can cancel it in some browsers.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      return true;
    } catch {
      return false;
    }
  }, [file, keys]);
}
