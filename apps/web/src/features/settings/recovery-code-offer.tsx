/**
 * The recovery code offered like an emergency kit (docs/protocol/encryption.md, "Recovery code"): once this device can read and the account
 * has no code, a notice says what it is for, with the way to Settings to make one. "Not now" puts it away on this
 * device; a code made on any device ends it everywhere.
 */
import { APP_ROUTES } from "@daysync/shared";
import { useQuery } from "@tanstack/react-query";
import { useId, useState, useSyncExternalStore } from "react";
import { Link } from "react-router";
import { RECOVERY_SECTION_HASH } from "../../lib/keys-state.ts";
import { useSessionServices } from "../../lib/session-services.ts";
import { readStorage, writeStorage } from "../../lib/storage.ts";
import { recoveryQueryOptions } from "./api/recovery.ts";
import { RECOVERY_SECTION_TEXT } from "./recovery-code-section.tsx";

export const RECOVERY_OFFER_TEXT = { heading: "Keep a recovery code", make: "Make a recovery code", later: "Not now" };

const putAwayKey = (userId: string) => `daysync.recovery-offer-put-away.${userId}`;

export function RecoveryCodeOffer() {
  const { keys, user } = useSessionServices();
  const status = useSyncExternalStore(keys.subscribe, keys.getStatus);
  const [putAway, setPutAway] = useState(() => readStorage(putAwayKey(user.id)) !== null);
  const recovery = useQuery({ ...recoveryQueryOptions, enabled: status.state === "ready" && !putAway });
  const titleId = useId();
  if (putAway || status.state !== "ready" || !recovery.isSuccess || recovery.data.recovery) return null;
  const putItAway = () => {
    writeStorage(putAwayKey(user.id), "1");
    setPutAway(true);
  };
  return (
    <section className="key-approval" aria-labelledby={titleId}>
      <h2 id={titleId}>{RECOVERY_OFFER_TEXT.heading}</h2>
      <p className="key-approval-muted">{RECOVERY_SECTION_TEXT.intro}</p>
      <div className="key-approval-actions">
        <Link className="btn btn-primary btn-sm" to={`${APP_ROUTES.settings}${RECOVERY_SECTION_HASH}`} onClick={putItAway}>
          {RECOVERY_OFFER_TEXT.make}
        </Link>
        <button type="button" className="btn btn-ghost btn-sm" onClick={putItAway}>
          {RECOVERY_OFFER_TEXT.later}
        </button>
      </div>
    </section>
  );
}
