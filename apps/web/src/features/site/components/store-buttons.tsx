import { Icon } from "./icons.tsx";

/**
 * Store badges of the hero. The Android app is the installable web app, so "Google Play" leads to
 * the install instructions; the App Store listing does not exist yet and says so instead of linking nowhere.
 */
export function StoreButtons() {
  return (
    <div className="store-buttons">
      <a className="store-button" href="/home#download">
        <Icon name="play" size={26} />
        <span className="store-button__text">
          <span className="store-button__small">Android app</span>
          <span className="store-button__big">Google Play</span>
        </span>
      </a>
      <span className="store-button store-button--soon">
        <Icon name="apple" size={26} />
        <span className="store-button__text">
          <span className="store-button__small">Coming soon to the</span>
          <span className="store-button__big">App Store</span>
        </span>
      </span>
    </div>
  );
}
