import { API, closeDeletedNotifications, formatDisplayDate, responseSchemas } from "@daysync/shared";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "react-toastify";
import { ConfirmDialog } from "../../components/ui/dialog.tsx";
import { TrashIcon } from "../../components/ui/icons.tsx";
import { api } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { noteDayCleared } from "../../lib/sealing/deletion-notes.ts";
import { useSessionServices } from "../../lib/session-services.ts";

interface ClearDayButtonProps {
  dayId: string;
  /** Stored date, M/d/yyyy. */
  date: string;
  /** The messages the user sees in the day, which the confirmation counts. */
  messageIds: readonly string[];
}

/** "Clear this day": asks first, naming how many messages go, then deletes them all on the server. */
export function ClearDayButton({ dayId, date, messageIds }: ClearDayButtonProps) {
  const [asking, setAsking] = useState(false);
  const { applyChange, keys, user } = useSessionServices();
  const count = messageIds.length;
  const clear = useMutation({
    mutationFn: async () => {
      await noteDayCleared(keys, user.id, dayId);
      return api.delete(API.dayMessages(dayId), responseSchemas.deleted);
    },
    onSuccess: ({ deleted }) => {
      applyChange({ kind: "day.messages.removed", ids: messageIds, clearedDayId: dayId });
      void navigator.serviceWorker
        ?.getRegistration()
        .then((registration) => registration && closeDeletedNotifications(registration, { message_ids: [], day_ids: [dayId] }))
        .catch(() => {});
      toast.success(`${deleted} ${deleted === 1 ? "message" : "messages"} deleted.`);
      setAsking(false);
    },
    onError: (error) => toast.error(describeError(error)),
  });

  return (
    <>
      <button type="button" className="btn btn-ghost btn-sm" onClick={() => setAsking(true)}>
        <TrashIcon size={16} />
        Clear this day
      </button>
      {asking ? (
        <ConfirmDialog
          title={`Delete ${count} ${count === 1 ? "message" : "messages"} of ${formatDisplayDate(date)}?`}
          confirmLabel="Delete"
          working={clear.isPending}
          error={null}
          onConfirm={() => clear.mutate()}
          onClose={() => setAsking(false)}
        >
          <p>They are deleted on all your devices, files included. This cannot be undone.</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
