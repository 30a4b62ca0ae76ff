import { useState } from "react";
import type { Swiper as SwiperInstance } from "swiper";
import { A11y, Navigation, Pagination } from "swiper/modules";
import { Swiper, SwiperSlide } from "swiper/react";
import "swiper/css";
import "swiper/css/pagination";
import { Icon } from "../components/icons.tsx";
import { CAROUSEL } from "./gallery-settings.ts";
import { SCREENSHOTS, screenshotFiles } from "./screenshots.ts";

const SIZES = "(min-width: 1024px) 200px, 50vw";

/** The screenshots in a Swiper carousel; a click hands the index and the clicked element up. */
export function ScreenshotCarousel({
  onOpen,
  onSwiper,
}: {
  onOpen: (index: number, trigger: HTMLElement) => void;
  /** Hands the Swiper instance up, so the gallery can bring a screenshot into view. */
  onSwiper: (swiper: SwiperInstance) => void;
}) {
  // Swiper wants the arrow elements when it initialises, so it mounts once both exist.
  const [prev, setPrev] = useState<HTMLButtonElement | null>(null);
  const [next, setNext] = useState<HTMLButtonElement | null>(null);
  return (
    <div className="gallery__carousel">
      <button ref={setPrev} type="button" className="gallery__arrow gallery__arrow--prev" aria-label="Previous screenshots">
        <Icon name="chevron-left" size={22} />
      </button>
      {prev && next ? (
        <Swiper
          modules={[Navigation, Pagination, A11y]}
          {...CAROUSEL}
          navigation={{ prevEl: prev, nextEl: next }}
          pagination={{ clickable: true }}
          a11y={{
            containerMessage: "Screenshots of Daysync",
            slideLabelMessage: "Screenshot {{index}} of {{slidesLength}}",
            prevSlideMessage: "Previous screenshots",
            nextSlideMessage: "Next screenshots",
            paginationBulletMessage: "Go to screenshot {{index}}",
          }}
          className="gallery__swiper"
          onSwiper={onSwiper}
        >
          {SCREENSHOTS.map((shot, index) => {
            const files = screenshotFiles(shot);
            const thumb = files[0];
            const tall = shot.viewport.height > shot.viewport.width;
            return (
              <SwiperSlide key={shot.name} className="gallery__slide">
                <button type="button" className="gallery__thumb" data-index={index} onClick={(event) => onOpen(index, event.currentTarget)}>
                  <span className={tall ? "gallery__frame gallery__frame--tall" : "gallery__frame"}>
                    <img
                      src={thumb?.src}
                      srcSet={files.map((file) => `${file.src} ${file.width}w`).join(", ")}
                      sizes={SIZES}
                      width={thumb?.width}
                      height={thumb?.height}
                      alt={shot.alt}
                      loading="lazy"
                      decoding="async"
                    />
                  </span>
                  <span className="gallery__caption">
                    <span className="gallery__number">{index + 1}</span>
                    <span className="gallery__caption-text">{shot.caption}</span>
                  </span>
                </button>
              </SwiperSlide>
            );
          })}
        </Swiper>
      ) : null}
      <button ref={setNext} type="button" className="gallery__arrow gallery__arrow--next" aria-label="Next screenshots">
        <Icon name="chevron-right" size={22} />
      </button>
    </div>
  );
}
