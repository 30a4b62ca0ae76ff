import { TEXT } from "@daysync/shared";
import type { NavLink } from "./components/site-header.tsx";
import { SiteLayout } from "./components/site-layout.tsx";
import { usePageMeta } from "./hooks/use-page-meta.ts";
import { ContactSection } from "./sections/contact-section.tsx";
import { DonateSection } from "./sections/donate-section.tsx";
import { DownloadSection } from "./sections/download-section.tsx";
import { HomeHeroSection } from "./sections/home-hero-section.tsx";
import { StepsSection } from "./sections/steps-section.tsx";
import { UseCasesSection } from "./sections/use-cases-section.tsx";

const LINKS: readonly NavLink[] = [
  { href: "#use-cases", label: "Use cases" },
  { href: "#steps", label: "How it works" },
  { href: "#download", label: "Download" },
  { href: "#donate", label: "Support us" },
  { href: "#contact", label: "Contact" },
];

/** The simpler marketing page at /home (product.md section 8). */
export function HomePage() {
  usePageMeta({
    title: `${TEXT.productName}: use cases and download`,
    description:
      "Send links, notes, codes and files from your phone to your computer with Daysync. Install it on Android, iOS, Windows, macOS or Linux.",
    path: "/home",
  });
  return (
    <SiteLayout links={LINKS}>
      <HomeHeroSection />
      <UseCasesSection />
      <StepsSection />
      <DownloadSection />
      <DonateSection />
      <ContactSection />
    </SiteLayout>
  );
}
