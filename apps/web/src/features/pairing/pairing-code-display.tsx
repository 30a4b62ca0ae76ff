import { formatShortCode, PAIRING_TTL_MS } from "@daysync/shared";
import { Spinner } from "../../components/ui/spinner.tsx";
import { PairingCountdown } from "./pairing-countdown.tsx";

interface PairingCodeDisplayProps {
  qr: string;
  qrAlt: string;
  deadline: number;
  shortCode: string;
  shortCodePrompt: string;
  shortCodeTestId: string;
  waitingText: string;
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
}: PairingCodeDisplayProps) {
  return (
    <>
      <div className="pairing-qr">
        <img src={qr} width={264} height={264} alt={qrAlt} />
      </div>
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
