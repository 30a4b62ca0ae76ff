import { type ReactNode, useRef, useState } from "react";
import { useInstallPrompt } from "../hooks/use-install-prompt.ts";
import { Icon } from "./icons.tsx";
import { InfoDialog } from "./info-dialog.tsx";
import { SiteLink } from "./site-link.tsx";

const OUTCOME_TEXT = {
  accepted: "Daysync is being installed. Look for its icon on your home screen or in your apps.",
  dismissed: "No problem. You can install Daysync any time from this button or your browser's menu.",
} as const;

/**
 * Installs the web app: the browser's own install prompt when it offers one (Chromium), otherwise a dialog
 * explaining how to add Daysync by hand (iOS Safari, Firefox, or already installed).
 */
export function InstallButton({ children, className }: { children: ReactNode; className: string }) {
  const { available, install } = useInstallPrompt();
  const [status, setStatus] = useState("");
  const dialog = useRef<HTMLDialogElement>(null);

  const onClick = async () => {
    const outcome = available ? await install() : "unavailable";
    if (outcome === "unavailable") dialog.current?.showModal();
    else setStatus(OUTCOME_TEXT[outcome]);
  };

  return (
    <>
      <button type="button" className={className} onClick={onClick}>
        <Icon name="download" size={20} /> {children}
      </button>
      <p className="split__status" role="status">
        {status}
      </p>
      <InfoDialog dialogRef={dialog} title="How to install Daysync">
        <p>Your browser has not offered its install prompt here, so this is how to add Daysync by hand:</p>
        <ul className="install-steps">
          <li>
            <strong>Android (Chrome):</strong> open the menu <span aria-hidden="true">⋮</span> and choose "Install app" or "Add to Home
            screen".
          </li>
          <li>
            <strong>iPhone and iPad (Safari):</strong> tap Share, then "Add to Home Screen".
          </li>
          <li>
            <strong>Windows, macOS, Linux (Chrome or Edge):</strong> select the install icon at the end of the address bar, or "Install
            Daysync" in the menu.
          </li>
        </ul>
        <p>
          Prefer not to install? Daysync works in any modern browser: <SiteLink to="/register">create your account</SiteLink> and you are
          ready.
        </p>
      </InfoDialog>
    </>
  );
}
