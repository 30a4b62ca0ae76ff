import { formatShortCode, PAIRING_TTL_MS } from "@daysync/shared";
import { Spinner } from "../../components/ui/spinner.tsx";
import { UNREACHABLE_LINK_TEXT } from "../../lib/server-address.ts";
import { PairingCountdown } from "./pairing-countdown.tsx";

interface PairingCodeDisplayProps {
  qr: string;
  qrAlt: string;
  deadline: number;
  shortCode: string;
  shortCodePrompt: string;
  shortCodeTestId: string;
  waitingText: string;
  /** False: the code names an address only this device can open (localhost), and the page says so. */
  reachable: boolean;
}

/** A code shown for another device: its QR code, the time left, the short code to type, and what it waits for. */
export function PairingCodeDisplay({
  qr,
  qrAlt,
  deadline,
  shortCode,
  shortCodePrompt,
  shortCodeTestId,
  waitingText,
  reachable,
}: PairingCodeDisplayProps) {
  return (
    <>
      <div className="pairing-qr">
        <img src={qr} width={264} height={264} alt={qrAlt} />
      </div>
      {reachable ? null : (
        <p className="pairing-unreachable" role="note">
          {UNREACHABLE_LINK_TEXT}
        </p>
      )}
      <PairingCountdown deadline={deadline} total={PAIRING_TTL_MS} />
      <p className="pairing-short">
        {shortCodePrompt}
        <strong className="pairing-short-code" data-testid={shortCodeTestId}>
          {formatShortCode(shortCode)}
        </strong>
      </p>
      <p className="pairing-waiting muted" role="status">
        <Spinner /> {waitingText}
      </p>
    </>
  );
}
