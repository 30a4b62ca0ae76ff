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
          {play ? (
            <a className="store-button" href={play} rel="noopener">
              <Icon name="play" size={26} />
              <span className="store-button__text">
                <span className="store-button__small">Get it on</span>
                <span className="store-button__big">Google Play</span>
              </span>
            </a>
          ) : null}
          {apple ? (
            <a className="store-button" href={apple} rel="noopener">
              <Icon name="apple" size={26} />
              <span className="store-button__text">
                <span className="store-button__small">Download on the</span>
                <span className="store-button__big">App Store</span>
              </span>
            </a>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
