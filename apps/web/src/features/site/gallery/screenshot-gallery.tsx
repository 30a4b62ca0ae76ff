import { useRef, useState } from "react";
import type { Swiper as SwiperInstance } from "swiper";
import { ScreenshotCarousel } from "./screenshot-carousel.tsx";
import { ScreenshotLightbox } from "./screenshot-lightbox.tsx";

/** Carousel plus lightbox, sharing the selected screenshot's index. */
export default function ScreenshotGallery() {
  const [selected, setSelected] = useState(0);
  const [open, setOpen] = useState(false);
  const swiper = useRef<SwiperInstance | null>(null);
  return (
    <>
      <ScreenshotCarousel
        onSwiper={(instance) => {
          swiper.current = instance;
        }}
        onOpen={(index) => {
          setSelected(index);
          setOpen(true);
        }}
      />
      <ScreenshotLightbox
        open={open}
        index={selected}
        onView={setSelected}
        onClose={() => setOpen(false)}
        // Closing leaves the carousel on the screenshot last viewed (product.md section 3), focused, not on the one clicked.
        onExited={() => {
          const carousel = swiper.current;
          const thumb = carousel?.slides[selected]?.querySelector<HTMLElement>(".gallery__thumb");
          if (!carousel || !thumb) return;
          carousel.slideTo(selected, 0);
          thumb.focus({ preventScroll: true });
        }}
      />
    </>
  );
}
