import { APP_ROUTES } from "@daysync/shared";
import { type FormEvent, useId, useState } from "react";
import { Link } from "react-router";
import { SEND_TEXT, type SendState, useSendShare } from "./use-send-share.ts";
import "./send.css";

function statusText(state: SendState | null): string {
  if (!state) return "";
  return state.kind === "sent" ? SEND_TEXT.sent : state.text;
}

/** /send, signed in: sends what was shared (from the address's fragment) and says "Sent"; also a plain send form. */
export function SendPage() {
  const { sent, state, sendText } = useSendShare();
  const [draft, setDraft] = useState("");
  const fieldId = useId();
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const content = draft.trim();
    if (!content) return;
    sendText(content);
    setDraft("");
  };
  return (
    <section className="send-page" aria-labelledby="send-page-title">
      <h1 id="send-page-title">Send to your days</h1>
      <p role="status" className={state?.kind === "failed" ? "send-status send-failed" : "send-status"}>
        {statusText(state)}
      </p>
      {sent ? (
        <blockquote className="send-sent-text" aria-label="Text sent">
          {sent.content}
        </blockquote>
      ) : null}
      <form className="send-form" onSubmit={onSubmit}>
        <label htmlFor={fieldId}>{sent ? "Send another" : "Text to send"}</label>
        <textarea id={fieldId} rows={4} value={draft} onChange={(e) => setDraft(e.target.value)} />
        <button type="submit" className="btn btn-primary" disabled={!draft.trim()}>
          Send
        </button>
      </form>
      <p>
        <Link to={APP_ROUTES.dashboard}>Today's messages</Link>
      </p>
    </section>
  );
}
