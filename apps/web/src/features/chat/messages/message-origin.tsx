import type { Message } from "@daysync/shared";
import { CheckIcon, DevicesIcon } from "../../../components/ui/icons.tsx";

/** Which of the user's devices sent a stored message, and that it is stored: a quiet label beside its time. */
export function MessageOrigin({ device }: { device: Message["device"] }) {
  return (
    <span className="message-origin">
      {device ? (
        <span className="message-device" title={`Sent from ${device.name}`}>
          <DevicesIcon size={13} />
          <span className="visually-hidden">Sent from </span>
          {device.name}
        </span>
      ) : null}
      <span className="message-state" data-state="sent">
        <CheckIcon size={13} />
        Sent
      </span>
    </span>
  );
}

/** The device label of a message still in this device's outbox (its pending state is shown beside it). */
export function PendingOrigin() {
  return (
    <span className="message-origin">
      <span className="message-device" title="Sent from this device">
        <DevicesIcon size={13} />
        <span className="visually-hidden">Sent from </span>
        This device
      </span>
    </span>
  );
}
