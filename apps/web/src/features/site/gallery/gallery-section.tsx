import { lazy, type RefObject, Suspense, useEffect, useRef, useState } from "react";
import { SectionHeading } from "../components/section-heading.tsx";
import { CAROUSEL } from "./gallery-settings.ts";
import { SCREENSHOTS } from "./screenshots.ts";
import "./gallery.css";

// Swiper and the lightbox are a chunk of their own, fetched only when the visitor nears the gallery.
const ScreenshotGallery = lazy(() => import("./screenshot-gallery.tsx"));

/** Starts loading the gallery when the section comes within a screen of the viewport. */
function useNearViewport(margin: string): [RefObject<HTMLDivElement | null>, boolean] {
  const ref = useRef<HTMLDivElement>(null);
  const [near, setNear] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element || near) return;
    if (typeof IntersectionObserver !== "function") {
      setNear(true);
      return;
    }
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) setNear(true);
      },
      { rootMargin: margin },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [margin, near]);
  return [ref, near];
}

/** Same box as the carousel, so nothing moves when it arrives. */
function GalleryPlaceholder() {
  return (
    <div className="gallery__placeholder-row" aria-hidden="true">
      <div className="gallery__placeholder" style={{ gap: CAROUSEL.spaceBetween }}>
        {SCREENSHOTS.slice(0, CAROUSEL.breakpoints[1024].slidesPerView).map((shot) => (
          <div key={shot.name} className="gallery__skeleton" />
        ))}
      </div>
    </div>
  );
}

export function GallerySection() {
  const [ref, near] = useNearViewport("600px 0px");
  return (
    <section id="gallery" className="section gallery" aria-labelledby="gallery-title">
      <div className="container">
        <SectionHeading id="gallery-title" eyebrow="Screenshots" title="See Daysync in action">
          Real screenshots of the app, light and dark, on a computer and on a phone. Select one to view it full screen.
        </SectionHeading>
        <div ref={ref} className="gallery__stage">
          {near ? (
            <Suspense fallback={<GalleryPlaceholder />}>
              <ScreenshotGallery />
            </Suspense>
          ) : (
            <GalleryPlaceholder />
          )}
        </div>
      </div>
    </section>
  );
}
