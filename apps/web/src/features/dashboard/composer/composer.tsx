import { messageFormSchema, TEXT, UPLOAD_TEXT } from "@daysync/shared";
import { zodResolver } from "@hookform/resolvers/zod";
import { type KeyboardEvent, useCallback, useEffect, useId, useState } from "react";
import { useForm } from "react-hook-form";
import { useLocation } from "react-router";
import { toast } from "react-toastify";
import { SendIcon } from "../../../components/ui/icons.tsx";
import { FileComposer } from "../uploads/file-composer.tsx";
import { useFileDrop } from "../uploads/use-file-drop.ts";
import { useFileUpload } from "../uploads/use-file-upload.ts";
import { useUploadLimit } from "../uploads/use-upload-limit.ts";
import "../uploads/uploads.css";
import { useSendMessage } from "./use-send-message.ts";
import "./composer.css";

interface ComposerProps {
  /** Called after a send, e.g. to show today's day when an older day was open. */
  onSent?: () => void;
}

/** The footer input: text, or a file (picked, dropped anywhere on the page, or pasted). */
export function Composer({ onSent }: ComposerProps) {
  const [mode, setMode] = useState<"text" | "file">("text");
  const limit = useUploadLimit();
  const upload = useFileUpload({
    maxFileSize: limit.data?.max_file_size,
    maxFileLabel: limit.data?.label,
    onUploaded: () => toast.success(UPLOAD_TEXT.success),
  });
  const busy = upload.state.status === "uploading" || upload.state.status === "pause";
  const { select } = upload;
  const onFile = useCallback(
    (file: File) => {
      setMode("file");
      select(file);
    },
    [select],
  );
  const dragging = useFileDrop(onFile, !busy);

  return (
    <div className="composer">
      {dragging ? <div className="drop-overlay">Drop the file to send it</div> : null}
      <button
        type="button"
        className="btn btn-secondary composer-mode"
        disabled={busy}
        onClick={() => setMode((m) => (m === "text" ? "file" : "text"))}
      >
        {mode === "text" ? "Attach file" : "Write text"}
      </button>
      <div className="composer-body">
        {mode === "text" ? <TextComposer onSent={onSent} /> : <FileComposer upload={upload} maxLabel={limit.data?.label} />}
      </div>
    </div>
  );
}

function TextComposer({ onSent }: ComposerProps) {
  const send = useSendMessage();
  const inputId = useId();
  const errorId = `${inputId}-error`;
  const { register, handleSubmit, formState, reset, setFocus } = useForm({
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

  const onSubmit = handleSubmit(({ message }) => {
    send(message);
    reset();
    setFocus("message");
    onSent?.();
  });

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter sends, Shift+Enter breaks the line; never while an IME is composing a character.
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void onSubmit();
    }
  };

  return (
    <form className="composer-text" onSubmit={onSubmit} noValidate>
      <div className="composer-row">
        <label htmlFor={inputId} className="visually-hidden">
          Message
        </label>
        <textarea
          id={inputId}
          className="composer-input"
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
          Enter to send · Shift+Enter for a new line
        </p>
      )}
    </form>
  );
}
