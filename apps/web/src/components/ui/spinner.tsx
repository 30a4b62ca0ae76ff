import type { ReactNode } from "react";
import { useHydrated } from "../../lib/use-hydrated.ts";
import "./ui.css";

/** A small rotating ring; decorative unless given a label. */
export function Spinner({ label, size = "sm" }: { label?: string; size?: "sm" | "lg" }) {
  return label ? (
    <span className={`spinner spinner-${size}`} role="status" aria-label={label} />
  ) : (
    <span className={`spinner spinner-${size}`} aria-hidden="true" />
  );
}

/** Fills the page while a route decides what to show. */
export function PageSpinner({ label = "Loading" }: { label?: string }) {
  return (
    <div className="page-spinner">
      <Spinner size="lg" label={label} />
    </div>
  );
}

/**
 * A form's full-width primary submit button: disabled and spinning while the form is at work.
 * In a page rendered at build time it also waits for the page's code: before that the browser would
 * submit the form itself, as a GET with the password in the address.
 */
export function SubmitButton({ working, children }: { working: boolean; children: ReactNode }) {
  const ready = useHydrated();
  return (
    <button type="submit" className="btn btn-primary btn-block" disabled={working || !ready} aria-busy={working}>
      {working ? <Spinner /> : null}
      {children}
    </button>
  );
}
