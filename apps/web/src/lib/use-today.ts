import { formatStoredDate } from "@daysync/shared";
import { useEffect, useState } from "react";

/** Today's stored date (M/d/yyyy) on this device, which changes at local midnight. */
export function useToday(): string {
  const [today, setToday] = useState(() => formatStoredDate(new Date()));
  useEffect(() => {
    const timer = setInterval(() => setToday(formatStoredDate(new Date())), 30_000);
    return () => clearInterval(timer);
  }, []);
  return today;
}
