import { DISCUSSION_ROUTES, type Discussion, formatPublicId } from "@daysync/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Modal } from "../../components/ui/dialog.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { reloadRoom } from "../../lib/sealing/room-hooks.ts";
import type { RoomView } from "../../lib/sealing/rooms.ts";
import { UNREACHABLE_LINK_TEXT, useLinkOrigin } from "../../lib/server-address.ts";
import { useSessionServices } from "../../lib/session-services.ts";
import { CopyTextButton } from "./copy-text-button.tsx";

/** The join link of a discussion: it opens the join screen and can never sign a device in (pairing keeps /pair). */
export const joinLinkOf = (discussion: Pick<Discussion, "public_id">, origin: string) =>
  `${origin}${DISCUSSION_ROUTES.join(discussion.public_id)}`;

export const KEYLESS_LINK_TEXT =
  "The link and QR code carry this discussion's key, which this device does not hold right now (it may be offline). The ID works meanwhile.";

/**
 * How to bring someone in: the ID to read out, the link, its QR code, Copy for each, and the system share sheet. An
 * encrypted discussion's link and QR code carry its current key in the fragment, which no request sends
 * (docs/protocol/encryption.md, "Share link and QR"); whoever types the ID is let in by a member's device instead.
 */
export function SharePanel({
  discussion,
  room,
  owner = false,
  onClose,
}: {
  discussion: Discussion;
  room?: RoomView;
  owner?: boolean;
  onClose: () => void;
}) {
  // PUBLIC_URL or the server's home network address, never localhost (issue 43).
  const target = useLinkOrigin();
  const link = joinLinkOf(discussion, target?.origin ?? window.location.origin) + (room?.fragment ?? "");
  // An encrypted discussion's link without its key would let no one in: none is shown until this device holds it.
  const keyless = discussion.encrypted === true && !room?.fragment;
  const shownId = formatPublicId(discussion.public_id);
  const [qr, setQr] = useState<string | null>(null);
  const [qrError, setQrError] = useState(false);
  const canShare = typeof navigator.share === "function";

  useEffect(() => {
    // Drawn once the address is known, so a phone never scans a code of localhost.
    if (!target || keyless) return;
    let active = true;
    // The QR library loads with the panel, not with the chat.
    void import("qrcode")
      .then((QRCode) => QRCode.toDataURL(link, { errorCorrectionLevel: "M", margin: 2, width: 240 }))
      .then((url) => active && setQr(url))
      .catch(() => active && setQrError(true));
    return () => {
      active = false;
    };
  }, [link, target, keyless]);

  return (
    <Modal title={`Share “${discussion.title}”`} onClose={onClose}>
      <p>Others join with this ID, this link or this QR code. They need a Daysync account; they see only the name you chose here.</p>
      {keyless ? (
        <p className="muted" role="note">
          {KEYLESS_LINK_TEXT}
        </p>
      ) : (
        <div className="share-qr">
          {qr ? (
            <img src={qr} width={240} height={240} alt={`QR code of the join link for ${discussion.title}`} />
          ) : qrError ? (
            <p role="alert">The QR code could not be drawn. Share the link or the ID instead.</p>
          ) : (
            <span className="muted">Drawing the QR code…</span>
          )}
        </div>
      )}
      <div className="share-row">
        <span className="share-label">ID</span>
        <span className="share-value share-id" data-testid="discussion-public-id">
          {shownId}
        </span>
        <CopyTextButton text={shownId} label="Copy ID" />
      </div>
      {keyless ? null : (
        <div className="share-row share-link">
          <span className="share-label">Link</span>
          <span className="share-value">{link}</span>
          <CopyTextButton text={link} label="Copy link" />
        </div>
      )}
      {room ? <IdJoining room={room} owner={owner} /> : null}
      {target && !target.reachable ? (
        <p className="muted" role="note">
          {UNREACHABLE_LINK_TEXT}
        </p>
      ) : null}
      <div className="dialog-buttons">
        {canShare && !keyless ? (
          <button
            type="button"
            className="btn btn-secondary"
            onClick={() =>
              void navigator
                .share({ title: discussion.title, text: `Join “${discussion.title}” on Daysync (ID ${shownId})`, url: link })
                .catch(() => {})
            }
          >
            Share
          </button>
        ) : null}
        <button type="button" className="btn btn-primary" onClick={onClose}>
          Done
        </button>
      </div>
    </Modal>
  );
}

/** Whether whoever types the ID may ask to be let in; only the creator changes it. */
function IdJoining({ room, owner }: { room: RoomView; owner: boolean }) {
  const { rooms } = useSessionServices();
  const queryClient = useQueryClient();
  const toggle = useMutation({
    mutationFn: (on: boolean) => rooms.setIdJoining(room.roomId, on),
    onSuccess: () => reloadRoom(queryClient, room.roomId),
  });
  const on = toggle.isPending && toggle.variables !== undefined ? toggle.variables : room.state.id_joining;
  if (!owner) {
    return (
      <p className="muted">
        {on
          ? "Whoever types the ID asks to join, and a member lets them in with the code their device shows."
          : "The creator turned off joining by ID: share the link or the QR code."}
      </p>
    );
  }
  return (
    <div className="share-row">
      <label>
        <input type="checkbox" checked={on} disabled={toggle.isPending} onChange={(e) => toggle.mutate(e.currentTarget.checked)} /> Let
        people who type the ID ask to join (a member lets them in with a code)
      </label>
      {toggle.error ? (
        <p className="field-error" role="alert">
          {describeError(toggle.error)}
        </p>
      ) : null}
    </div>
  );
}
