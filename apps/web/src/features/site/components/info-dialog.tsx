import { type ReactNode, type RefObject, useId } from "react";
import { Icon } from "./icons.tsx";
import "../../../components/ui/icon-button.css";

/**
 * A modal explanation built on <dialog>: the browser gives it focus trapping, Escape and a backdrop.
 * Open it with ref.current.showModal().
 */
export function InfoDialog({
  dialogRef,
  title,
  children,
}: {
  dialogRef: RefObject<HTMLDialogElement | null>;
  title: string;
  children: ReactNode;
}) {
  const titleId = useId();
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the click only closes on the backdrop; keyboard users have Escape and the Close button.
    <dialog
      ref={dialogRef}
      className="info-dialog"
      aria-labelledby={titleId}
      onClick={(event) => {
        // A click on the backdrop lands on the dialog element itself.
        if (event.target === event.currentTarget) event.currentTarget.close();
      }}
    >
      <div className="info-dialog__body">
        <div className="info-dialog__head">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={() => dialogRef.current?.close()}>
            <Icon name="close" size={20} />
          </button>
        </div>
        {children}
      </div>
    </dialog>
  );
}
