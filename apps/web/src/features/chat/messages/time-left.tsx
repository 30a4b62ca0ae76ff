import { formatTimeLeft } from "@daysync/shared";
import { HourglassIcon } from "../../../components/ui/icons.tsx";
import { useNow } from "../../../lib/use-now.ts";

/** Counts down to the moment the message disappears. */
export function TimeLeft({ expiresAt }: { expiresAt: number }) {
  const now = useNow();
  const left = expiresAt - now;
  const text = formatTimeLeft(left);
  return (
    <span className="time-left" data-soon={left < 60_000 || undefined} title={`Disappears in ${text}`}>
      <HourglassIcon size={13} />
      <span className="visually-hidden">Disappears in </span>
      {text}
    </span>
  );
}
