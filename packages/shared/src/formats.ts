/** Date and time formats of the spec: stored M/d/yyyy and h:mm a, shown dd/MM/yyyy. */

const pad2 = (n: number) => String(n).padStart(2, "0");

/** Stored day text, M/d/yyyy, in the device's local calendar. */
export function formatStoredDate(d: Date): string {
  return `${d.getMonth() + 1}/${d.getDate()}/${d.getFullYear()}`;
}

/** Stored message time, h:mm a (e.g. "3:07 PM"), in the device's local clock. */
export function formatStoredTime(d: Date): string {
  const h = d.getHours() % 12 || 12;
  return `${h}:${pad2(d.getMinutes())} ${d.getHours() < 12 ? "AM" : "PM"}`;
}

export const STORED_DATE_PATTERN = /^(1[0-2]|[1-9])\/(3[01]|[12]\d|[1-9])\/(\d{4})$/;
export const STORED_TIME_PATTERN = /^(1[0-2]|[1-9]):[0-5]\d (AM|PM)$/;

/** Parses M/d/yyyy into its parts, or null when it is not a real calendar date. */
export function parseStoredDate(text: string): { year: number; month: number; day: number } | null {
  const m = STORED_DATE_PATTERN.exec(text);
  if (!m) return null;
  const month = Number(m[1]);
  const day = Number(m[2]);
  const year = Number(m[3]);
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return null;
  return { year, month, day };
}

/** Sortable key of a stored date: yyyy-mm-dd. */
export function dayKeyOf(storedDate: string): string {
  const p = parseStoredDate(storedDate);
  if (!p) throw new Error(`Not a stored date: ${storedDate}`);
  return `${p.year}-${pad2(p.month)}-${pad2(p.day)}`;
}

/** Shown date, dd/MM/yyyy, from a stored M/d/yyyy date. */
export function formatDisplayDate(storedDate: string): string {
  const p = parseStoredDate(storedDate);
  if (!p) return storedDate;
  return `${pad2(p.day)}/${pad2(p.month)}/${p.year}`;
}

/** Time left before a message disappears, for its badge: "14 min", "59 s", "23 h". */
export function formatTimeLeft(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.ceil(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  const rest = min % 60;
  return rest === 0 ? `${h} h` : `${h} h ${rest} min`;
}

const KIB = 1024;
const MIB = 1024 * KIB;
const GIB = 1024 * MIB;

/** A file or storage size as the plan limits are written: "1 MiB", "0.7 MiB", "1.5 GiB", "12 KiB". */
export function formatFileSize(bytes: number): string {
  if (bytes >= GIB) return `${+(bytes / GIB).toFixed(2)} GiB`;
  if (bytes >= 0.1 * MIB) return `${+(bytes / MIB).toFixed(1)} MiB`;
  if (bytes >= KIB) return `${Math.round(bytes / KIB)} KiB`;
  return `${bytes} B`;
}
