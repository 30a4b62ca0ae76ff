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
