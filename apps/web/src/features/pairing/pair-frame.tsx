import { TEXT } from "@daysync/shared";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { BrandMark } from "../../components/ui/brand-mark.tsx";
import "./pairing.css";

/** The frame of the full pairing pages: the brand (linking `home`) over one card. */
export function PairFrame({ home, children }: { home: string; children: ReactNode }) {
  return (
    <div className="pair-page">
      <header className="pair-header">
        <Link to={home} className="pair-brand">
          <BrandMark size={28} />
          {TEXT.productName}
        </Link>
      </header>
      <main className="pair-card">{children}</main>
    </div>
  );
}
