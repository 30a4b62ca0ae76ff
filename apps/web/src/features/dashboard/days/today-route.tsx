import { PageSpinner } from "../../../components/ui/spinner.tsx";
import { DayView } from "./day-view.tsx";
import { useDays } from "./use-days.ts";
import { useToday } from "./use-today.ts";

/** /dashboard and /dashboard/home: today's day, whether or not it has a record yet. */
export function TodayRoute({ welcome = false }: { welcome?: boolean }) {
  const days = useDays();
  const today = useToday();
  if (days.isPending) return <PageSpinner label="Loading today" />;
  const record = days.data?.find((d) => d.date === today) ?? null;
  return <DayView dayId={record?.id ?? null} date={today} welcome={welcome} />;
}

export function HomeRoute() {
  return <TodayRoute welcome />;
}
