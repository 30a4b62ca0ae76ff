import { useEffect } from "react";
import Lightbox, { type SlideImage } from "yet-another-react-lightbox";
import "yet-another-react-lightbox/styles.css";
import { LIGHTBOX } from "./gallery-settings.ts";
import { SCREENSHOTS, screenshotFiles } from "./screenshots.ts";

const SLIDES: SlideImage[] = SCREENSHOTS.map((shot) => {
  const files = screenshotFiles(shot);
  const largest = files[files.length - 1];
  return {
    src: largest?.src ?? "",
    alt: shot.alt,
    width: largest?.width,
    height: largest?.height,
    srcSet: files.map((file) => ({ src: file.src, width: file.width, height: file.height })),
  };
});

/** Shown in place of a screenshot that failed to load; named, so screen readers announce the failure too. */
function LoadError() {
  return (
    <div className="gallery-error" role="img" aria-label="This screenshot could not be loaded">
      <svg viewBox="0 0 24 24" width="48" height="48" aria-hidden="true" focusable="false">
        <path
          fill="currentColor"
          d="M21.9 21.9l-8.49-8.49L3.59 3.59 2.1 2.1.69 3.51 3 5.83V19c0 1.1.9 2 2 2h13.17l2.31 2.31 1.42-1.41zM5 18l3.5-4.5 2.5 3.01L12.17 15l3 3H5zm16 .17L5.83 3H19c1.1 0 2 .9 2 2v13.17z"
        />
      </svg>
      <span className="gallery-error__text" aria-hidden="true">
        Screenshot unavailable
      </span>
    </div>
  );
}

/**
 * Keeps Tab inside the open lightbox: the library makes the page behind inert, but Tab past its last button
 * reaches the browser's own UI, where its Escape and arrow-key handlers no longer hear the keyboard.
 */
function useTabTrap(open: boolean): void {
  useEffect(() => {
    if (!open) return;
    const onKeyDown = (event: KeyboardEvent) => {
      const dialog = document.querySelector(".gallery-lightbox");
      if (event.key !== "Tab" || !dialog) return;
      const stops = [...dialog.querySelectorAll<HTMLElement>("button:not([disabled])")];
      if (stops.length === 0) return;
      event.preventDefault();
      const at = stops.indexOf(document.activeElement as HTMLElement);
      const step = event.shiftKey ? -1 : 1;
      const next = at === -1 ? (event.shiftKey ? stops.length - 1 : 0) : (at + step + stops.length) % stops.length;
      stops[next]?.focus();
    };
    document.addEventListener("keydown", onKeyDown, true);
    return () => document.removeEventListener("keydown", onKeyDown, true);
  }, [open]);
}

export function ScreenshotLightbox({
  open,
  index,
  onView,
  onClose,
  onExited,
}: {
  open: boolean;
  /** The screenshot shown, kept while the lightbox fades out. */
  index: number;
  onView: (index: number) => void;
  onClose: () => void;
  onExited: () => void;
}) {
  const current = SCREENSHOTS[index];
  useTabTrap(open);
  return (
    <Lightbox
      open={open}
      className="gallery-lightbox"
      index={index}
      close={onClose}
      slides={SLIDES}
      animation={LIGHTBOX.animation}
      carousel={LIGHTBOX.carousel}
      controller={LIGHTBOX.controller}
      on={{ view: ({ index: viewed }) => onView(viewed), exited: onExited }}
      labels={{ Lightbox: "Screenshot viewer", "Photo gallery": "Screenshots of Daysync" }}
      render={{
        iconError: () => <LoadError />,
        controls: () =>
          current ? (
            <p className="gallery-lightbox__caption" aria-live="polite">
              {index + 1} / {SCREENSHOTS.length} · {current.caption}
            </p>
          ) : null,
      }}
    />
  );
}
