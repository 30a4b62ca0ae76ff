/** The Daysync mark: two day pages joined by a sync arc. The one logo of every page (site, sign-in, pair, dashboard). */
export function BrandMark({ size = 32 }: { size?: number }) {
  return (
    <svg className="brand-mark" viewBox="0 0 32 32" width={size} height={size} aria-hidden="true" focusable="false">
      <rect x="2" y="2" width="28" height="28" rx="8" fill="var(--primary)" />
      <rect x="8" y="9" width="10" height="12" rx="2.5" fill="var(--primary-text)" opacity="0.55" />
      <rect x="14" y="12" width="10" height="12" rx="2.5" fill="var(--primary-text)" />
      <path d="M9 24.5a8 8 0 0 0 5 2.3" fill="none" stroke="var(--primary-text)" strokeWidth="1.8" strokeLinecap="round" />
    </svg>
  );
}
