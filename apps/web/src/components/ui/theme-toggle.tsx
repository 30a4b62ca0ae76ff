import { toggleTheme, useTheme } from "../../lib/theme.ts";
import "./icon-button.css";
import "./theme-toggle.css";

/**
 * Switches the whole app between light and dark and remembers the choice.
 * A toggle button: its name stays "Dark theme" and aria-pressed says whether it is on.
 */
export function ThemeToggle({ className }: { className?: string }) {
  const dark = useTheme() === "dark";
  return (
    <button
      type="button"
      className={className ? `icon-button theme-toggle ${className}` : "icon-button theme-toggle"}
      aria-pressed={dark}
      aria-label="Dark theme"
      title={dark ? "Switch to the light theme" : "Switch to the dark theme"}
      onClick={toggleTheme}
    >
      {dark ? <MoonIcon /> : <SunIcon />}
    </button>
  );
}

function SunIcon() {
  return (
    <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <circle cx="12" cy="12" r="4.5" fill="none" stroke="currentColor" strokeWidth="2" />
      <path
        d="M12 2v2.5M12 19.5V22M4.22 4.22l1.77 1.77M18.01 18.01l1.77 1.77M2 12h2.5M19.5 12H22M4.22 19.78l1.77-1.77M18.01 5.99l1.77-1.77"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
      />
    </svg>
  );
}

function MoonIcon() {
  return (
    <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
      <path d="M20.5 14.2A8.5 8.5 0 0 1 9.8 3.5a8.5 8.5 0 1 0 10.7 10.7Z" fill="currentColor" />
    </svg>
  );
}
