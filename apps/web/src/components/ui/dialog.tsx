import { type ReactNode, useEffect, useId, useRef } from "react";
import "./dialog.css";

interface ModalProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
}

/**
 * A modal dialog, open while mounted: the browser's <dialog> keeps focus inside, and Escape closes it; focus
 * goes back to what opened it.
 */
export function Modal({ title, onClose, children }: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      dialog?.close();
      opener?.focus();
    };
  }, []);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}

interface ConfirmProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  working: boolean;
  error: string | null;
  onConfirm: () => void;
  onClose: () => void;
}

/** "Are you sure?" for what cannot be undone: Cancel has the focus first. */
export function ConfirmDialog({ title, children, confirmLabel, working, error, onConfirm, onClose }: ConfirmProps) {
  return (
    <Modal title={title} onClose={onClose}>
      {children}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="dialog-buttons">
        {/* biome-ignore lint/a11y/noAutofocus: the safe choice takes the focus when the dialog opens */}
        <button type="button" className="btn btn-secondary" onClick={onClose} autoFocus>
          Cancel
        </button>
        <button type="button" className="btn btn-danger" disabled={working} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
