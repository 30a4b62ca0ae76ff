import { useSiteConfig } from "../../../lib/site-config.ts";
import { Icon } from "./icons.tsx";
import { InstallButton } from "./install-button.tsx";

/**
 * The hero's install row. Daysync installs as a web app, so the working button is "Install the app"; a store
 * badge shows only where the owner of this server gave its listing (PLAY_STORE_URL, APP_STORE_URL).
 */
export function StoreButtons() {
  const site = useSiteConfig();
  const play = site?.play_store_url;
  const apple = site?.app_store_url;
  return (
    <div className="store-row">
      <InstallButton className="button button--ghost button--large">Install the app</InstallButton>
      {play || apple ? (
        <div className="store-buttons">
          {play ? <StoreBadge href={play} icon="play" small="Get it on" big="Google Play" /> : null}
          {apple ? <StoreBadge href={apple} icon="apple" small="Download on the" big="App Store" /> : null}
        </div>
      ) : null}
    </div>
  );
}

function StoreBadge({ href, icon, small, big }: { href: string; icon: "play" | "apple"; small: string; big: string }) {
  return (
    <a className="store-button" href={href} rel="noopener">
      <Icon name={icon} size={26} />
      <span className="store-button__text">
        <span className="store-button__small">{small}</span>
        <span className="store-button__big">{big}</span>
      </span>
    </a>
  );
}
