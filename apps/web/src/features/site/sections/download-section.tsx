import { useRef, useState } from "react";
import { Icon } from "../components/icons.tsx";
import { InfoDialog } from "../components/info-dialog.tsx";
import { SectionHeading } from "../components/section-heading.tsx";
import { SiteLink } from "../components/site-link.tsx";
import { useInstallPrompt } from "../hooks/use-install-prompt.ts";

const OUTCOME_TEXT = {
  accepted: "Daysync is being installed. Look for its icon on your home screen or in your apps.",
  dismissed: "No problem. You can install Daysync any time from this button or your browser's menu.",
} as const;

/** Download: the browser's own install prompt when it offers one, otherwise how to install by hand. */
export function DownloadSection() {
  const { available, install } = useInstallPrompt();
  const [status, setStatus] = useState("");
  const dialog = useRef<HTMLDialogElement>(null);

  const onDownload = async () => {
    const outcome = available ? await install() : "unavailable";
    if (outcome === "unavailable") dialog.current?.showModal();
    else setStatus(OUTCOME_TEXT[outcome]);
  };

  return (
    <section id="download" className="section section--alt" aria-labelledby="download-title">
      <div className="container split">
        <SectionHeading id="download-title" eyebrow="Download" title="Install Daysync in a tap" centered={false}>
          Daysync installs straight from your browser on Android, iOS, Windows, macOS and Linux. Our Google Play listing is on its way and
          the App Store version is coming soon; the installed web app is the same Daysync.
        </SectionHeading>
        <div className="split__action">
          <button type="button" className="button button--primary button--large" onClick={onDownload}>
            <Icon name="download" size={20} /> Download Daysync
          </button>
          <p className="split__status" role="status">
            {status}
          </p>
        </div>
      </div>
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
    </section>
  );
}
