import { InstallButton } from "../components/install-button.tsx";
import { SectionHeading } from "../components/section-heading.tsx";

/** Download: the browser's own install prompt when it offers one, otherwise how to install by hand. */
export function DownloadSection() {
  return (
    <section id="download" className="section section--alt" aria-labelledby="download-title">
      <div className="container split">
        <SectionHeading id="download-title" eyebrow="Download" title="Install Daysync in a tap" centered={false}>
          Daysync installs straight from your browser on Android, iOS, Windows, macOS and Linux: the installed web app is the whole of
          Daysync, with no store needed.
        </SectionHeading>
        <div className="split__action">
          <InstallButton className="button button--primary button--large">Download Daysync</InstallButton>
        </div>
      </div>
    </section>
  );
}
