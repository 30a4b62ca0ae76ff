import { type Message, TEXT } from "@daysync/shared";
import type { ReactNode } from "react";
import { useCopy } from "../../lib/copy-to-clipboard.ts";
import type { Shown } from "../../lib/shown.ts";
import "./send.css";

/** A message as the data hooks hand it to views: its text (a file's: its name) opened on this device. */
type ShownMessage = Message & { shown: Shown };

export const LATEST_TEXT = { title: "Latest", none: "No messages yet." } as const;

interface LatestMessageProps {
  /** The newest message of the user's days, opened here; undefined when there is none. */
  message: ShownMessage | undefined;
  loading: boolean;
  /** How a file message is shown (its name and Download link): app/ hands in the chat's file body. */
  fileBody: (message: ShownMessage) => ReactNode;
}

/** /latest: the newest message with one Copy button, for a home-screen bookmark; live, as its queries are. */
export function LatestMessage({ message, loading, fileBody }: LatestMessageProps) {
  return (
    <section className="send-page latest-page" aria-labelledby="latest-title" aria-busy={loading || undefined}>
      <h1 id="latest-title">{LATEST_TEXT.title}</h1>
      {loading ? null : message ? <LatestBody message={message} fileBody={fileBody} /> : <p>{LATEST_TEXT.none}</p>}
    </section>
  );
}

function LatestBody({ message, fileBody }: { message: ShownMessage; fileBody: LatestMessageProps["fileBody"] }) {
  const { state, copy } = useCopy();
  const { shown } = message;
  const text = shown.kind === "text" ? shown.text : null;
  return (
    <article className="latest-message" aria-label="Newest message">
      {message.type !== "text" ? (
        fileBody(message)
      ) : (
        <p className="send-sent-text" aria-busy={shown.kind === "opening" || undefined}>
          {shown.kind === "opening" ? null : shown.text}
        </p>
      )}
      <p>
        Sent <time>{message.time}</time>, {message.date}
      </p>
      {message.type === "text" && text !== null ? (
        <p>
          <button type="button" className="btn btn-primary" onClick={() => copy(text)}>
            {TEXT.copy}
          </button>{" "}
          <span role="status">{state === "copied" ? TEXT.copied : state === "failed" ? TEXT.copyFailed : ""}</span>
        </p>
      ) : null}
    </article>
  );
}
