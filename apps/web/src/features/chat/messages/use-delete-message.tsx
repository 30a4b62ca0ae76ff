import { TIMINGS } from "@daysync/shared";
import { useCallback } from "react";
import { toast } from "react-toastify";
import type { Outbox } from "../../../lib/outbox.ts";
import { useSessionServices } from "../../../lib/session-services.ts";

/** As long as the toast shows, the deletion can be undone; it is sent when the toast goes. */
const UNDO_MS = TIMINGS.toastAutoClose;

function UndoToast({ outbox, id, close }: { outbox: Outbox; id: string; close: () => void }) {
  return (
    <div className="undo-toast">
      <span>Message deleted.</span>
      <button
        type="button"
        className="btn btn-secondary btn-sm"
        onClick={() => {
          outbox.cancelDelete(id);
          close();
        }}
      >
        Undo
      </button>
    </div>
  );
}

/**
 * Deletes a message the way the user sees it: gone at once, with Undo for 5 s; the deletion then goes through
 * the outbox, so it also waits for the connection when offline.
 */
export function useDeleteMessage(discussionId?: string): (id: string) => void {
  const { outbox } = useSessionServices();
  return useCallback(
    (id: string) => {
      // A fallback for a lost toast (the page closed): the outbox sends it a little after the toast would have.
      outbox.enqueueDelete(id, UNDO_MS + 1000, discussionId);
      toast(({ closeToast }) => <UndoToast outbox={outbox} id={id} close={closeToast} />, {
        toastId: `delete-${id}`,
        autoClose: UNDO_MS,
        // Undo is only offered as long as the toast says; the deletion must not wait on a hovering pointer.
        pauseOnHover: false,
        pauseOnFocusLoss: false,
        closeButton: false,
        onClose: () => outbox.releaseDelete(id),
      });
    },
    [outbox, discussionId],
  );
}
