import { useRef, useState } from "react";
import { ScreenshotCarousel } from "./screenshot-carousel.tsx";
import { ScreenshotLightbox } from "./screenshot-lightbox.tsx";

/** Carousel plus lightbox, sharing the selected screenshot's index. */
export default function ScreenshotGallery() {
  const [selected, setSelected] = useState(0);
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLElement | null>(null);
  return (
    <>
      <ScreenshotCarousel
        onOpen={(index, trigger) => {
          opener.current = trigger;
          setSelected(index);
          setOpen(true);
        }}
      />
      <ScreenshotLightbox
        open={open}
        index={selected}
        onView={setSelected}
        onClose={() => setOpen(false)}
        // The lightbox restores focus itself; this covers a thumbnail re-rendered while it was open.
        onExited={() => {
          if (opener.current && document.activeElement !== opener.current) opener.current.focus();
        }}
      />
    </>
  );
}
