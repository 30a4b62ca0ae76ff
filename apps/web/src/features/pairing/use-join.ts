/**
 * Add a device, on the new device: open the offer's code once, then wait for the answer on the pairing
 * channel exactly as the login page's panel does, and on approval exchange the token for a session.
 */
import type { PairingJoined, User } from "@daysync/shared";
import { useEffect, useRef, useState } from "react";
import { describeError } from "../../lib/api-errors.ts";
import { signInIfApproved } from "./approved-sign-in.ts";
import { newAskingKey, type PairingKeys } from "./key-handover.ts";
import { joinOffer } from "./pairing-api.ts";
import { type PairingOutcome, waitForApproval } from "./pairing-channel.ts";

const RETRY_AFTER_LOST_MS = 2000;

export type JoinState =
  | { phase: "joining" }
  | { phase: "waiting"; deviceName: string }
  | { phase: "signing-in" }
  | { phase: "failed" }
  | { phase: "expired" }
  | { phase: "error"; message: string };

/** A code is opened once per page load, even when the effect runs twice (React's strict mode). */
type Joined = PairingJoined & { keys?: PairingKeys };
const joins = new Map<string, Promise<Joined>>();
function joinOnce(code: string, secret: string | null): Promise<Joined> {
  let join = joins.get(code);
  if (!join) {
    join = (async () => {
      if (!secret) return joinOffer(code);
      const asking = await newAskingKey(secret);
      return { ...(await joinOffer(code, asking.body)), keys: { asking, secret } };
    })();
    joins.set(code, join);
    // A refused or failed attempt may be tried again (a reload, the same link once more); a success never is.
    join.catch(() => joins.delete(code));
  }
  return join;
}

/** `secret`: from the QR link's fragment; null for a typed code, which hands over no key. */
export function useJoin(code: string, secret: string | null, onSignedIn: (user: User) => void, onFailed: () => void): JoinState {
  const [state, setState] = useState<JoinState>({ phase: "joining" });
  const callbacks = useRef({ onSignedIn, onFailed });
  callbacks.current = { onSignedIn, onFailed };

  useEffect(() => {
    let active = true;
    let closeChannel: (() => void) | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;

    const onOutcome = async (outcome: PairingOutcome, joined: Joined) => {
      if (!active) return;
      if (outcome.type === "lost") {
        timer = setTimeout(() => listen(joined), RETRY_AFTER_LOST_MS);
        return;
      }
      if (outcome.type === "expired") return setState({ phase: "expired" });
      await signInIfApproved(outcome, joined, setState, () => active, callbacks.current);
    };
    const listen = (joined: Joined) => {
      if (active) closeChannel = waitForApproval(joined, (outcome) => void onOutcome(outcome, joined));
    };

    setState({ phase: "joining" });
    joinOnce(code, secret).then(
      (joined) => {
        if (!active) return;
        setState({ phase: "waiting", deviceName: joined.device_name });
        listen(joined);
      },
      (error: unknown) => {
        if (active) setState({ phase: "error", message: describeError(error) });
      },
    );

    return () => {
      active = false;
      clearTimeout(timer);
      closeChannel?.();
    };
  }, [code, secret]);

  return state;
}
