/** The spec's numbers for the carousel (Swiper) and the lightbox (yet-another-react-lightbox), in one place. */
export const CAROUSEL = {
  /** The spec says 6, which makes 25 px slivers on a phone; phones show 2 like tablets (product.md section 8). */
  slidesPerView: 2,
  /** Swiper breakpoints are min-widths of the window: 2 from 640 px, 6 from 1024 px. */
  breakpoints: { 640: { slidesPerView: 2 }, 1024: { slidesPerView: 6 } },
  spaceBetween: 40,
  speed: 300,
  threshold: 5,
  longSwipesRatio: 0.5,
  longSwipesMs: 300,
} as const;

export const LIGHTBOX = {
  animation: { fade: 250, swipe: 500 },
  carousel: { finite: true, preload: 2, padding: 16, spacing: "30%", imageFit: "contain" },
  controller: { closeOnPullDown: false },
} as const;
