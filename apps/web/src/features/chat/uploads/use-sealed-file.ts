/**
 * A sealed file message in the page (docs/protocol/encryption.md, "File records"): its image opened here into a Blob for the thumbnail
 * and the lightbox, whether the service worker controls the page (its route streams downloads and players), and a
 * download opened here into a Blob when it does not (a first load before the worker claims it, a hard reload).
 */
import { useCallback, useEffect, useMemo, useState, useSyncExternalStore } from "react";
import { heldEpochsOf } from "../../../lib/sealing/device-keys.ts";
import type { RoomMessageFields } from "../../../lib/sealing/rooms.ts";
import {
  isUndecryptable,
  openWholeFile,
  plainSizeOf,
  type SealedFileMessage,
  sealedFileLink,
  sealedFileOf,
  THUMBNAIL_LIMIT,
} from "../../../lib/sealing/sealed-files.ts";
import { useSessionServices } from "../../../lib/session-services.ts";

function useHeldEpochs() {
  const { user, keys } = useSessionServices();
  const status = useSyncExternalStore(keys.subscribe, keys.getStatus);
  const epochs = useMemo(() => heldEpochsOf(status), [status]);
  return { userId: user.id, epochs };
}

/** A sealed file as its message's body shows it: its record, plain size and link, and whether its image opens here. */
export interface SealedFile {
  file: SealedFileMessage;
  size: number;
  href: string;
  /** An image small enough to open in the page for its thumbnail. */
  thumbnail: boolean;
}

/** The sealed file a message names, or undefined when its record is not one this device can read (tampered). */
export function useSealedFile(message: Parameters<typeof sealedFileOf>[0]): SealedFile | undefined {
  return useMemo(() => {
    const file = sealedFileOf(message);
    const size = file ? plainSizeOf(file.file_size) : undefined;
    if (!file || size === undefined) return undefined;
    return { file, size, href: sealedFileLink(file), thumbnail: message.type === "image" && size <= THUMBNAIL_LIMIT };
  }, [message]);
}

/** An image's thumbnail: its object URL once opened (revoked when done), or why there is none. */
export type OpenedImage = { state: "opening" } | { state: "opened"; url: string } | { state: "undecryptable" } | { state: "unavailable" };

export function useOpenedImage(file: SealedFileMessage | undefined): OpenedImage {
  const { userId, epochs } = useHeldEpochs();
  const [image, setImage] = useState<OpenedImage>({ state: "opening" });
  useEffect(() => {
    if (!file || !epochs) return;
    const abort = new AbortController();
    let url: string | undefined;
    setImage({ state: "opening" });
    openWholeFile(userId, epochs, file, abort.signal).then(
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
  }, [file, userId, epochs]);
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
  const { userId, epochs } = useHeldEpochs();
  return useCallback(async () => {
    if (!file) return false;
    try {
      const { blob, name } = await openWholeFile(userId, epochs, file);
      const url = URL.createObjectURL(blob);
      const link = Object.assign(document.createElement("a"), { href: url, download: name });
      link.click();
      // The download has taken the Blob by the time this runs; revoking at once can cancel it in some browsers.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      return true;
    } catch {
      return false;
    }
  }, [file, userId, epochs]);
}

/**
 * A file of an encrypted discussion: its plain size, and a download opened here with the room's key into a Blob
 * (lib/sealing/rooms.ts `openFile`; the service worker holds no room keys). Resolves false if it could not.
 */
export function useRoomFile(discussionId: string, message: Omit<RoomMessageFields, "content">) {
  const { rooms } = useSessionServices();
  const size = message.file_size === undefined ? undefined : plainSizeOf(message.file_size);
  const download = useCallback(async () => {
    try {
      const { blob, name } = await rooms.openFile(discussionId, { ...message, content: "" });
      const url = URL.createObjectURL(blob);
      Object.assign(document.createElement("a"), { href: url, download: name }).click();
      // The download has taken the Blob by the time this runs; revoking at once can cancel it in some browsers.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      return true;
    } catch {
      return false;
    }
  }, [rooms, discussionId, message]);
  return { size, download };
}
