import { Icon } from "./icons.tsx";
import { InstallButton } from "./install-button.tsx";

/**
 * The hero's install row. Daysync installs today as a web app, so the working button is "Install the app";
 * neither store listing exists yet, so both badges say "coming soon" instead of linking nowhere.
 */
export function StoreButtons() {
  return (
    <div className="store-row">
      <InstallButton className="button button--ghost button--large">Install the app</InstallButton>
      <div className="store-buttons">
        <span className="store-button store-button--soon">
          <Icon name="play" size={26} />
          <span className="store-button__text">
            <span className="store-button__small">Coming soon to</span>
            <span className="store-button__big">Google Play</span>
          </span>
        </span>
        <span className="store-button store-button--soon">
          <Icon name="apple" size={26} />
          <span className="store-button__text">
            <span className="store-button__small">Coming soon to the</span>
            <span className="store-button__big">App Store</span>
          </span>
        </span>
      </div>
    </div>
  );
}
