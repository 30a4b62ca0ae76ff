import { APP_ROUTES } from "@daysync/shared";
import { type ChangeEvent, type FormEvent, useId, useState } from "react";
import { Link } from "react-router";
import { useSendFiles } from "./use-send-files.ts";
import { SEND_TEXT, type SendState, useSendShare } from "./use-send-share.ts";
import "./send.css";

function statusText(state: SendState | null): string {
  if (!state) return "";
  return state.kind === "sent" ? SEND_TEXT.sent : state.text;
}

/**
 * /send, signed in: sends what was shared (from the address's fragment) and says "Sent"; also a plain send form, and
 * files chosen here (a fragment cannot carry a file), sealed like the composer's. The status follows the latest send.
 */
export function SendPage() {
  const { sent, state, sendText } = useSendShare();
  const { sentFiles, fileState, sendFiles } = useSendFiles();
  const [latest, setLatest] = useState<"text" | "files">("text");
  const [draft, setDraft] = useState("");
  const fieldId = useId();
  const fileId = useId();
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const content = draft.trim();
    if (!content) return;
    sendText(content);
    setDraft("");
    setLatest("text");
  };
  const onFiles = (event: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(event.target.files ?? []);
    event.target.value = "";
    if (!files.length) return;
    sendFiles(files);
    setLatest("files");
  };
  const shown = latest === "files" && fileState ? fileState : state;
  const percent = shown?.kind === "waiting" ? shown.percent : undefined;
  return (
    <section className="send-page" aria-labelledby="send-page-title">
      <h1 id="send-page-title">Send to your days</h1>
      <p role="status" className={shown?.kind === "failed" ? "send-status send-failed" : "send-status"}>
        {statusText(shown)}
      </p>
      {percent === undefined ? null : <progress className="send-progress" max={100} value={percent} aria-label="Upload progress" />}
      {latest === "text" && sent ? (
        <blockquote className="send-sent-text" aria-label="Text sent">
          {sent.content}
        </blockquote>
      ) : null}
      {latest === "files" && sentFiles ? (
        <ul className="send-sent-files" aria-label="Files sent">
          {sentFiles.map((name, i) => (
            // Two files may share a name; the list only shows them.
            // biome-ignore lint/suspicious/noArrayIndexKey: the list is replaced whole, never reordered
            <li key={i}>{name}</li>
          ))}
        </ul>
      ) : null}
      <form className="send-form" onSubmit={onSubmit}>
        <label htmlFor={fieldId}>{sent || sentFiles ? "Send another" : "Text to send"}</label>
        <textarea id={fieldId} rows={4} value={draft} onChange={(e) => setDraft(e.target.value)} />
        <button type="submit" className="btn btn-primary" disabled={!draft.trim()}>
          Send
        </button>
      </form>
      <div className="send-file">
        <label htmlFor={fileId}>Or send a file</label>
        <input id={fileId} type="file" multiple onChange={onFiles} />
      </div>
      <p>
        <Link to={APP_ROUTES.dashboard}>Today's messages</Link>
      </p>
    </section>
  );
}
