/**
 * Add a device, on the new device: open the offer's code once, then wait for the answer on the pairing
 * channel exactly as the login page's panel does, and on approval exchange the token for a session.
 */
import { APPROVAL_TEXT, type PairingJoined, type User } from "@daysync/shared";
import { useEffect, useRef, useState } from "react";
import { describeError } from "../../lib/api-errors.ts";
import { makePairingSecret, newAskingKey, type PairingKeys } from "../../lib/sealing/pairing-handover.ts";
import { joiningRequester, type PairingRequester } from "../../lib/sealing/typed-pairing.ts";
import { signInIfApproved } from "./approved-sign-in.ts";
import { joinOffer } from "./pairing-api.ts";
import { type PairingOutcome, waitForApproval } from "./pairing-channel.ts";

const RETRY_AFTER_LOST_MS = 2000;

export type JoinState =
  | { phase: "joining" }
  | { phase: "waiting"; deviceName: string }
  | { phase: "confirmed"; deviceName: string }
  | { phase: "wrong_code" }
  | { phase: "ended"; text: string }
  | { phase: "signing-in" }
  | { phase: "failed" }
  | { phase: "expired" }
  | { phase: "error"; message: string };

/** A code is opened once per page load, even when the effect runs twice (React's strict mode). */
type Joined = PairingJoined & { keys?: PairingKeys; typed?: PairingRequester<PairingJoined> };
const joins = new Map<string, Promise<Joined>>();
function joinOnce(code: string, secret: string | null, password: string | null): Promise<Joined> {
  let join = joins.get(code);
  if (!join) {
    join = (async () => {
      if (password) {
        // The code typed: the key, a proof no one checks (there is no link secret) and the share for the password half.
        const typed = await joiningRequester(await newAskingKey(makePairingSecret()), code, password);
        return { ...(await typed.join()), typed };
      }
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

/**
 * `secret`: from the QR link's fragment; `password`: the typed code's password half (`code` is then its lookup half),
 * whose exchange hands over the key with the approval. With neither, the device is approved without a key.
 */
export function useJoin(
  code: string,
  secret: string | null,
  password: string | null,
  onSignedIn: (user: User) => void,
  onFailed: () => void,
): JoinState {
  const [state, setState] = useState<JoinState>({ phase: "joining" });
  const callbacks = useRef({ onSignedIn, onFailed });
  callbacks.current = { onSignedIn, onFailed };

  useEffect(() => {
    let active = true;
    let closeChannel: (() => void) | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Once the typed code's exchange ended the request here, the channel's end says nothing more.
    let settled = false;

    const onOutcome = async (outcome: PairingOutcome, joined: Joined) => {
      if (!active || settled) return;
      if (outcome.type === "lost") {
        timer = setTimeout(() => listen(joined), RETRY_AFTER_LOST_MS);
        return;
      }
      if (outcome.type === "expired") return setState({ phase: "expired" });
      await signInIfApproved(outcome, joined, setState, () => active, callbacks.current);
    };
    const onExchange = (joined: Joined, typed: PairingRequester<PairingJoined>) => (exchange: Parameters<typeof typed.update>[0]) => {
      void typed.update(exchange).then((step) => {
        if (!active || settled) return;
        if (step.step === "confirmed") return setState({ phase: "confirmed", deviceName: joined.device_name });
        if (step.step === "show" && step.wrongCodes > 0) {
          settled = true;
          return setState({ phase: "wrong_code" });
        }
        if (step.step === "ended" || step.step === "refused") {
          settled = true;
          const text = step.step === "refused" ? APPROVAL_TEXT.refused : APPROVAL_TEXT.endedWrongCodes;
          setState({ phase: "ended", text });
        }
      });
    };
    const listen = (joined: Joined) => {
      if (!active) return;
      const exchange = joined.typed ? onExchange(joined, joined.typed) : undefined;
      closeChannel = waitForApproval(joined, (outcome) => void onOutcome(outcome, joined), exchange);
    };

    setState({ phase: "joining" });
    joinOnce(code, secret, password).then(
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
  }, [code, secret, password]);

  return state;
}
