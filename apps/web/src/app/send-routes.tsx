import { APP_ROUTES } from "@daysync/shared";
import { useEffect, useState } from "react";
import { useLocation } from "react-router";
import { PageSpinner } from "../components/ui/spinner.tsx";
import { SessionUnreachable } from "../features/auth/session-routes.tsx";
import { useMe } from "../features/auth/use-me.ts";
import { useOpenedDayMessages } from "../features/chat/api/day-messages.ts";
import { FileMessageBody } from "../features/chat/uploads/file-message-body.tsx";
import { useDays } from "../features/dashboard/api/days.ts";
import { LatestMessage } from "../features/send/latest-message.tsx";
import { NotPairedPage } from "../features/send/not-paired-page.tsx";
import { takeShareFromAddress } from "../features/send/pending-send.ts";
import { SignedInFrame } from "./dashboard-route.tsx";

/**
 * /send and /latest (issue 46): signed in, the signed-in frame around the page (its outbox, keys and approval
 * notice); otherwise a page saying how to pair, which keeps what was shared. /send's fragment is read and removed
 * from the address bar before anything else.
 */
export function SendFrameRoute() {
  const location = useLocation();
  const onSendPage = location.pathname.startsWith(APP_ROUTES.send);
  useState(() => {
    if (onSendPage) takeShareFromAddress();
  });
  // A share menu may open /send#… again in a tab already showing it: only the fragment changes.
  useEffect(() => {
    if (!onSendPage) return;
    window.addEventListener("hashchange", takeShareFromAddress);
    return () => window.removeEventListener("hashchange", takeShareFromAddress);
  }, [onSendPage]);
  const me = useMe();
  if (me.data) return <SignedInFrame user={me.data} />;
  if (me.isPending) return <PageSpinner />;
  if (me.isError) return <SessionUnreachable error={me.error} retry={() => void me.refetch()} />;
  return <NotPairedPage returnTo={location.pathname} />;
}

/** /latest: the newest message of the user's days (the newest day holding any), opened, kept current live. */
export function LatestRoute() {
  const days = useDays();
  const newestDay = days.data?.find((day) => day.count_messages > 0);
  const { query, messages } = useOpenedDayMessages(newestDay?.id);
  const loading = (days.isPending && days.fetchStatus !== "paused") || (Boolean(newestDay) && query.isPending);
  const newest = messages.at(-1);
  return (
    <LatestMessage
      message={newest}
      loading={loading}
      fileBody={(message) => (message.type === "text" ? null : <FileMessageBody message={message} shown={message.shown} />)}
    />
  );
}
