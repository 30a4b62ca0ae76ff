import { TIMINGS } from "@daysync/shared";
import { useEffect, useState } from "react";
import "./ui.css";

export interface BannerMessage {
  text: string;
  /** A new id restarts the timer even when the text repeats. */
  id: number;
}

/** The red failure banner of the sign-in and register screens, hidden after TIMINGS.errorBanner. */
export function ErrorBanner({ message }: { message: BannerMessage | null }) {
  const [visible, setVisible] = useState<number | null>(null);
  useEffect(() => {
    if (!message) return;
    setVisible(message.id);
    const timer = setTimeout(() => setVisible(null), TIMINGS.errorBanner);
    return () => clearTimeout(timer);
  }, [message]);
  if (!message || visible !== message.id) return null;
  return (
    <div className="error-banner" role="alert">
      <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
        <path
          fill="currentColor"
          d="M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20Zm0 5a1.2 1.2 0 0 1 1.2 1.2v4.6a1.2 1.2 0 0 1-2.4 0V8.2A1.2 1.2 0 0 1 12 7Zm0 10.6a1.4 1.4 0 1 1 0-2.8 1.4 1.4 0 0 1 0 2.8Z"
        />
      </svg>
      <span>{message.text}</span>
    </div>
  );
}
