import { DISCUSSION_ROUTES, type Discussion, formatPublicId } from "@daysync/shared";
import { useEffect, useState } from "react";
import { Modal } from "../../components/ui/dialog.tsx";
import { UNREACHABLE_LINK_TEXT, useLinkOrigin } from "../../lib/server-address.ts";
import { CopyTextButton } from "./copy-text-button.tsx";

/** The join link of a discussion: it opens the join screen and can never sign a device in (pairing keeps /pair). */
export const joinLinkOf = (discussion: Pick<Discussion, "public_id">, origin: string) =>
  `${origin}${DISCUSSION_ROUTES.join(discussion.public_id)}`;

/** How to bring someone in: the ID to read out, the link, its QR code, Copy for each, and the system share sheet. */
export function SharePanel({ discussion, onClose }: { discussion: Discussion; onClose: () => void }) {
  // PUBLIC_URL or the server's home network address, never localhost (issue 43).
  const target = useLinkOrigin();
  const link = joinLinkOf(discussion, target?.origin ?? window.location.origin);
  const shownId = formatPublicId(discussion.public_id);
  const [qr, setQr] = useState<string | null>(null);
  const [qrError, setQrError] = useState(false);
  const canShare = typeof navigator.share === "function";

  useEffect(() => {
    // Drawn once the address is known, so a phone never scans a code of localhost.
    if (!target) return;
    let active = true;
    // The QR library loads with the panel, not with the chat.
    void import("qrcode")
      .then((QRCode) => QRCode.toDataURL(link, { errorCorrectionLevel: "M", margin: 2, width: 240 }))
      .then((url) => active && setQr(url))
      .catch(() => active && setQrError(true));
    return () => {
      active = false;
    };
  }, [link, target]);

  return (
    <Modal title={`Share “${discussion.title}”`} onClose={onClose}>
      <p>Others join with this ID, this link or this QR code. They need a Daysync account; they see only the name you chose here.</p>
      <div className="share-qr">
        {qr ? (
          <img src={qr} width={240} height={240} alt={`QR code of the join link for ${discussion.title}`} />
        ) : qrError ? (
          <p role="alert">The QR code could not be drawn. Share the link or the ID instead.</p>
        ) : (
          <span className="muted">Drawing the QR code…</span>
        )}
      </div>
      <div className="share-row">
        <span className="share-label">ID</span>
        <span className="share-value share-id" data-testid="discussion-public-id">
          {shownId}
        </span>
        <CopyTextButton text={shownId} label="Copy ID" />
      </div>
      <div className="share-row">
        <span className="share-label">Link</span>
        <span className="share-value">{link}</span>
        <CopyTextButton text={link} label="Copy link" />
      </div>
      {target && !target.reachable ? (
        <p className="muted" role="note">
          {UNREACHABLE_LINK_TEXT}
        </p>
      ) : null}
      <div className="dialog-buttons">
        {canShare ? (
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
