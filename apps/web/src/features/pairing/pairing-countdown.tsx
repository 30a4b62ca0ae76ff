import { useNow } from "../../lib/use-now.ts";

const format = (ms: number) => {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};

/** Time left on the code shown, as text and a shrinking bar. */
export function PairingCountdown({ deadline, total }: { deadline: number; total: number }) {
  const now = useNow();
  const left = Math.max(0, deadline - now);
  return (
    <div className="pairing-countdown">
      <span role="timer">Code expires in {format(left)}</span>
      <span className="pairing-countdown-bar" aria-hidden="true">
        <span style={{ width: `${Math.min(100, (left / total) * 100)}%` }} />
      </span>
    </div>
  );
}
