import { TEXT } from "@daysync/shared";
import type { NavLink } from "./components/site-header.tsx";
import { SiteLayout } from "./components/site-layout.tsx";
import { GallerySection } from "./gallery/gallery-section.tsx";
import { usePageMeta } from "./hooks/use-page-meta.ts";
import { AboutSection } from "./sections/about-section.tsx";
import { ContactSection } from "./sections/contact-section.tsx";
import { FaqSection } from "./sections/faq-section.tsx";
import { FeaturedSection } from "./sections/featured-section.tsx";
import { FeaturesSection } from "./sections/features-section.tsx";
import { HeroSection } from "./sections/hero-section.tsx";
import { PricingSection } from "./sections/pricing-section.tsx";
import { StepsSection } from "./sections/steps-section.tsx";

const LINKS: readonly NavLink[] = [
  { href: "#hero", label: "Overview" },
  { href: "#about", label: "About" },
  { href: "#features", label: "Features" },
  { href: "#pricing", label: "Pricing" },
  { href: "#faq", label: "FAQ" },
  { href: "#contact", label: "Contact" },
];

/** The main marketing page, at / and /landing (product.md section 8). */
export function LandingPage() {
  usePageMeta({
    title: `${TEXT.productName}: ${TEXT.tagline}`,
    description:
      "Daysync moves text, links and files between your phone and your computer in about a second, kept on a page per day. Free to start.",
    path: "/",
  });
  return (
    <SiteLayout links={LINKS}>
      <HeroSection />
      <AboutSection />
      <FeaturedSection />
      <StepsSection />
      <FeaturesSection />
      <GallerySection />
      <PricingSection />
      <FaqSection />
      <ContactSection />
    </SiteLayout>
  );
}
