import { messageFormSchema, TEXT, UPLOAD_TEXT } from "@daysync/shared";
import { zodResolver } from "@hookform/resolvers/zod";
import { type ClipboardEvent, type FormEvent, type KeyboardEvent, useCallback, useEffect, useId, useRef, useState } from "react";
import { useForm } from "react-hook-form";
import { useLocation } from "react-router";
import { toast } from "react-toastify";
import { PaperclipIcon, SendIcon } from "../../../components/ui/icons.tsx";
import { announceSent, registerComposer, shortcutsDisabledAt } from "../../../lib/chat-focus.ts";
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

/** How long a pick waits for the plan and storage checks before staging anyway (the server refuses what does not fit). */
const CHECKS_WAIT_MS = 3000;

/** The offer under the box after text was pasted into it while empty. */
export const SEND_PASTED = "Send what you pasted";

/** One notice for one Send's files, however many there were. */
const notifySent = (files: File[]) =>
  toast.success(
    files.length === 1 ? (
      // One element: the toast's body lays its children out in a row, and the name goes under the sentence.
      <span>
        {UPLOAD_TEXT.success} <span className="toast-detail">{files[0]?.name}</span>
      </span>
    ) : (
      `${files.length} files sent`
    ),
  );

const within = <T,>(promise: Promise<T>, ms: number): Promise<T | undefined> =>
  Promise.race([promise.catch(() => undefined), new Promise<undefined>((resolve) => setTimeout(resolve, ms))]);

/** A pointer that can hover: a computer, where a focused message box does not cover the page with a keyboard. */
const hasFinePointer = () => typeof window !== "undefined" && window.matchMedia?.("(hover: hover) and (pointer: fine)").matches === true;

/** The footer: text, and files attached, dropped anywhere on the page, or pasted, each with its own upload row. One Send sends both. */
export function Composer({ onSent, discussionId }: ComposerProps) {
  const limit = useUploadLimit();
  const readStorage = useReadStorage();
  const queue = useUploadQueue({ onBatchSent: notifySent, discussionId });
  const [refusals, setRefusals] = useState<string[]>([]);
  const { stage, getRows, sendAll } = queue;
  const { refetch } = limit;

  const addFiles = useCallback(
    async (files: File[]) => {
      // Offline, or with a slow server, the pick is not held up: what is known is checked, the rest the server checks.
      const online = navigator.onLine;
      const [plan, storage] = await Promise.all([
        limit.data ??
          (online
            ? within(
                refetch().then((r) => r.data),
                CHECKS_WAIT_MS,
              )
            : undefined),
        within(readStorage(), CHECKS_WAIT_MS),
      ]);
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
  /** Sends the staged files; false when there were none. */
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

const normalised = (text: string) => text.replace(/\r\n?/g, "\n");

function TextComposer({ onSent, discussionId, onFiles, sendFiles, maxLabel }: TextComposerProps) {
  const send = useSendMessage(discussionId);
  const inputId = useId();
  const errorId = `${inputId}-error`;
  const fileInput = useRef<HTMLInputElement>(null);
  const textarea = useRef<HTMLTextAreaElement | null>(null);
  const { register, handleSubmit, formState, reset, setFocus, getValues, setValue, clearErrors, watch } = useForm({
    resolver: zodResolver(messageFormSchema),
    defaultValues: { message: "" },
  });
  const error = formState.errors.message?.message;
  // Text pasted into the empty box: while the box holds just that, one key sends it.
  const [pasted, setPasted] = useState<string | null>(null);
  const offer = pasted !== null && watch("message") === pasted;

  // A day or discussion opening, or 'Today' in the sidebar ("write for today"), puts the cursor here; on a
  // phone only when asked, so its keyboard does not cover the messages each time a day opens.
  const location = useLocation();
  const compose = (location.state as { compose?: boolean } | null)?.compose === true;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the path is when to run it, another day or discussion opened
  useEffect(() => {
    if (!compose && !hasFinePointer()) return;
    if (document.activeElement !== textarea.current && shortcutsDisabledAt(document.activeElement)) return;
    setFocus("message");
  }, [compose, location.pathname, setFocus]);

  useEffect(() => (textarea.current ? registerComposer(textarea.current) : undefined), []);

  // Text pasted anywhere outside another field lands here; files are staged by the page's paste (useFileDrop).
  useEffect(() => {
    const onPaste = (e: globalThis.ClipboardEvent) => {
      if (shortcutsDisabledAt(e.target) || e.defaultPrevented || e.clipboardData?.files.length) return;
      const text = e.clipboardData?.getData("text/plain");
      if (!text) return;
      e.preventDefault();
      const before = getValues("message");
      const value = before ? `${before}${text}` : normalised(text);
      setValue("message", value);
      if (!before) setPasted(value);
      const input = textarea.current;
      input?.focus();
      input?.setSelectionRange(value.length, value.length);
    };
    window.addEventListener("paste", onPaste);
    return () => window.removeEventListener("paste", onPaste);
  }, [getValues, setValue]);

  const sendText = handleSubmit(({ message }) => {
    send(message);
    announceSent();
    reset();
    setPasted(null);
    setFocus("message");
    onSent?.();
  });

  const onSubmit = (e?: FormEvent) => {
    e?.preventDefault();
    // With files staged, an empty box is not a mistake: the files are what is being sent.
    if (sendFiles() && !getValues("message").trim()) {
      announceSent();
      clearErrors("message");
      setFocus("message");
      onSent?.();
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

  const onTextPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const text = e.clipboardData.getData("text/plain");
    if (text && !e.clipboardData.files.length && getValues("message") === "") setPasted(normalised(text));
  };

  const { ref: registerRef, ...field } = register("message");

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
          onPaste={onTextPaste}
          {...field}
          ref={(el) => {
            registerRef(el);
            textarea.current = el;
          }}
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
        <div className="composer-hint" id={`${inputId}-hint`} aria-live="polite">
          {offer ? (
            <button type="button" className="btn btn-primary btn-sm composer-offer" aria-keyshortcuts="Enter" onClick={() => onSubmit()}>
              {SEND_PASTED} <kbd>(Enter)</kbd>
            </button>
          ) : (
            "Enter to send · Shift+Enter for a new line · drop or paste files to attach them"
          )}
        </div>
      )}
    </form>
  );
}
