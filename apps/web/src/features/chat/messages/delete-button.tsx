import { TrashIcon } from "../../../components/ui/icons.tsx";
import { useDeleteMessage } from "./use-delete-message.tsx";

export function DeleteButton({ messageId }: { messageId: string }) {
  const deleteMessage = useDeleteMessage();
  return (
    <button type="button" className="message-action message-delete" aria-label="Delete message" onClick={() => deleteMessage(messageId)}>
      <TrashIcon size={15} />
      Delete
    </button>
  );
}
