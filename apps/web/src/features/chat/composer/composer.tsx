import { messageFormSchema, TEXT, UPLOAD_TEXT } from "@daysync/shared";
import { zodResolver } from "@hookform/resolvers/zod";
import { type FormEvent, type KeyboardEvent, useCallback, useEffect, useId, useRef, useState } from "react";
import { useForm } from "react-hook-form";
import { useLocation } from "react-router";
import { toast } from "react-toastify";
import { PaperclipIcon, SendIcon } from "../../../components/ui/icons.tsx";
import { checkFiles } from "../uploads/file-checks.ts";
import { StagedFiles } from "../uploads/staged-files.tsx";
import { useFileDrop } from "../uploads/use-file-drop.ts";
import { useReadStorage } from "../uploads/use-storage.ts";
import { useUploadLimit } from "../uploads/use-upload-limit.ts";
import { useUploadQueue } from "../uploads/use-upload-queue.ts";
import "../uploads/uploads.css";
import { useSendMessage } from "./use-send-message.ts";
import "../../../components/ui/ui.css";
import "./composer.css";

interface ComposerProps {
  /** Called after a send, e.g. to show today's day when an older day was open. */
  onSent?: () => void;
  /** Where messages and files go: this discussion, or (without one) today's day of the user. */
  discussionId?: string;
}

const uploaded = (file: File) =>
  toast.success(
    <>
      {UPLOAD_TEXT.success} <span className="toast-detail">{file.name}</span>
    </>,
  );

/** The footer: text, and files attached, dropped anywhere on the page, or pasted, each with its own upload row. */
export function Composer({ onSent, discussionId }: ComposerProps) {
  const limit = useUploadLimit();
  const readStorage = useReadStorage();
  const queue = useUploadQueue({ onUploaded: uploaded, discussionId });
  const [refusals, setRefusals] = useState<string[]>([]);
  const { stage, getRows, sendAll } = queue;
  const { refetch } = limit;

  const addFiles = useCallback(
    async (files: File[]) => {
      const [plan, storage] = await Promise.all([limit.data ?? refetch().then((r) => r.data), readStorage()]);
      // Staged files have not reached the server yet: the storage it reports does not count them.
      const pending = getRows()
        .filter((r) => r.status === "initial")
        .reduce((sum, r) => sum + r.file.size, 0);
      const checked = checkFiles(files, { maxFileSize: plan?.max_file_size, maxFileLabel: plan?.label, storage, pending });
      setRefusals(checked.refusals);
      stage(checked.accepted);
    },
    [limit.data, refetch, readStorage, getRows, stage],
  );
  const onFiles = useCallback((files: File[]) => void addFiles(files), [addFiles]);
  /** The message's Send (or Enter) also sends the staged files, so a pasted image goes with one key. */
  const sendFiles = useCallback(() => {
    const ready = getRows().some((r) => r.status === "initial" && !r.queued);
    if (ready) sendAll();
    return ready;
  }, [getRows, sendAll]);
  const dragging = useFileDrop(onFiles);

  return (
    <div className="composer">
      {dragging ? <div className="drop-overlay">Drop files to attach them</div> : null}
      <StagedFiles queue={queue} />
      {refusals.length ? (
        <div className="upload-refusals" role="alert">
          <ul>
            {refusals.map((text) => (
              <li key={text}>{text}</li>
            ))}
          </ul>
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => setRefusals([])}>
            Dismiss
          </button>
        </div>
      ) : null}
      <TextComposer onSent={onSent} discussionId={discussionId} onFiles={onFiles} sendFiles={sendFiles} maxLabel={limit.data?.label} />
    </div>
  );
}

interface TextComposerProps extends ComposerProps {
  onFiles: (files: File[]) => void;
  /** Sends the staged files; false when there were none. */
  sendFiles: () => boolean;
  maxLabel?: string;
}

function TextComposer({ onSent, discussionId, onFiles, sendFiles, maxLabel }: TextComposerProps) {
  const send = useSendMessage(discussionId);
  const inputId = useId();
  const errorId = `${inputId}-error`;
  const fileInput = useRef<HTMLInputElement>(null);
  const { register, handleSubmit, formState, reset, setFocus, getValues, clearErrors } = useForm({
    resolver: zodResolver(messageFormSchema),
    defaultValues: { message: "" },
  });
  const error = formState.errors.message?.message;

  // 'Today' in the sidebar means "write for today": put the cursor here.
  const location = useLocation();
  const compose = (location.state as { compose?: boolean } | null)?.compose === true;
  useEffect(() => {
    if (compose) setFocus("message");
  }, [compose, setFocus]);

  const sendText = handleSubmit(({ message }) => {
    send(message);
    reset();
    setFocus("message");
    onSent?.();
  });

  const onSubmit = (e?: FormEvent) => {
    e?.preventDefault();
    // With files staged, an empty box is not a mistake: the files are what is being sent.
    if (sendFiles() && !getValues("message").trim()) {
      clearErrors("message");
      return;
    }
    void sendText();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter sends, Shift+Enter breaks the line; never while an IME is composing a character.
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      onSubmit();
    }
  };

  return (
    <form className="composer-text" onSubmit={onSubmit} noValidate>
      <div className="composer-row">
        <button
          type="button"
          className="btn btn-secondary composer-attach"
          aria-label="Attach files"
          title={maxLabel ? `Attach files (up to ${maxLabel} each)` : "Attach files"}
          onClick={() => fileInput.current?.click()}
        >
          <PaperclipIcon size={18} />
        </button>
        <input
          ref={fileInput}
          type="file"
          multiple
          hidden
          aria-label="Choose files"
          onChange={(e) => {
            onFiles(Array.from(e.currentTarget.files ?? []));
            e.currentTarget.value = "";
          }}
        />
        <label htmlFor={inputId} className="visually-hidden">
          Message
        </label>
        <textarea
          id={inputId}
          className="field-input composer-input"
          rows={1}
          placeholder={TEXT.messagePlaceholder}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : `${inputId}-hint`}
          onKeyDown={onKeyDown}
          {...register("message")}
        />
        <button type="submit" className="btn btn-primary composer-send">
          <SendIcon size={18} />
          <span>{TEXT.send}</span>
        </button>
      </div>
      {error ? (
        <p className="field-error composer-error" id={errorId}>
          {error}
        </p>
      ) : (
        <p className="composer-hint" id={`${inputId}-hint`}>
          Enter to send · Shift+Enter for a new line · drop or paste files to attach them
        </p>
      )}
    </form>
  );
}
