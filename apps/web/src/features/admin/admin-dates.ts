import { formatDisplayDate, formatStoredDate, formatStoredTime } from "@daysync/shared";

/** How the admin page writes a moment: the app's date, with the time, or the hour it starts. */
export const dateOf = (ms: number) => formatDisplayDate(formatStoredDate(new Date(ms)));
export const dateTimeOf = (ms: number) => `${dateOf(ms)} ${formatStoredTime(new Date(ms))}`;
export const hourOf = (ms: number) => `${String(new Date(ms).getHours()).padStart(2, "0")}:00`;
