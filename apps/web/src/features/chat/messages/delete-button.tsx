import { TrashIcon } from "../../../components/ui/icons.tsx";
import { useDeleteMessage } from "./use-delete-message.tsx";

export function DeleteButton({ messageId, discussionId }: { messageId: string; discussionId?: string }) {
  const deleteMessage = useDeleteMessage(discussionId);
  return (
    <button type="button" className="message-action message-delete" aria-label="Delete message" onClick={() => deleteMessage(messageId)}>
      <TrashIcon size={15} />
      Delete
    </button>
  );
}
