import { useParams } from "react-router";
import { PageSpinner } from "../components/ui/spinner.tsx";
import { useDayMessages } from "../features/chat/api/day-messages.ts";
import { ChatView } from "../features/chat/chat-view.tsx";
import { useDays } from "../features/dashboard/api/days.ts";
import { DayMissing } from "../features/dashboard/days/day-missing.tsx";
import { WelcomePanel } from "../features/dashboard/days/welcome-panel.tsx";
import { ApiError } from "../lib/api-client.ts";
import { describeError } from "../lib/api-errors.ts";
import { useToday } from "../lib/use-today.ts";

/** /dashboard and /dashboard/home: today's chat, whether or not the day has a record yet. */
export function TodayRoute({ welcome = false }: { welcome?: boolean }) {
  const days = useDays();
  const today = useToday();
  // Offline, and this device kept no days: today's chat still takes what is typed, into the outbox.
  if (days.isPending && days.fetchStatus !== "paused") return <PageSpinner label="Loading today" />;
  const record = days.data?.find((d) => d.date === today) ?? null;
  return <ChatView space={{ kind: "day", dayId: record?.id ?? null, date: today }} intro={welcome ? <WelcomePanel /> : null} />;
}

export function HomeRoute() {
  return <TodayRoute welcome />;
}

/** /dashboard/days/:dayId */
export function DayRoute() {
  const { dayId = "" } = useParams();
  const days = useDays();
  const messages = useDayMessages(dayId);
  const date = messages.data?.day.date ?? days.data?.find((d) => d.id === dayId)?.date;
  const missing = messages.error instanceof ApiError && (messages.error.status === 404 || messages.error.status === 400);
  if (missing || (!date && messages.isError)) {
    return <DayMissing reason={missing ? "It may belong to another account, or the link is wrong." : describeError(messages.error)} />;
  }
  if (!date && messages.fetchStatus === "paused") {
    return <DayMissing reason="This device has not kept it. It loads when the connection is back." />;
  }
  if (!date) return <PageSpinner label="Loading day" />;
  return <ChatView key={dayId} space={{ kind: "day", dayId, date }} />;
}
