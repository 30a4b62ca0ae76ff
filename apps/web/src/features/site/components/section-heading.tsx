import type { ReactNode } from "react";

/** Eyebrow, heading and lead paragraph that open each section. */
export function SectionHeading({
  id,
  eyebrow,
  title,
  children,
  centered = true,
}: {
  id: string;
  eyebrow: string;
  title: string;
  children?: ReactNode;
  centered?: boolean;
}) {
  return (
    <div className={centered ? "section-heading section-heading--center" : "section-heading"}>
      <p className="eyebrow">{eyebrow}</p>
      <h2 id={id}>{title}</h2>
      {children ? <p className="lead">{children}</p> : null}
    </div>
  );
}
