import { describe, expect, it } from "vitest";
import {
  dayKeyOf,
  formatDisplayDate,
  formatFileSize,
  formatStoredDate,
  formatStoredTime,
  formatTimeLeft,
  parseStoredDate,
} from "./formats.ts";

describe("date and time formats", () => {
  it("stores dates as M/d/yyyy without padding", () => {
    expect(formatStoredDate(new Date(2026, 0, 5, 9, 3))).toBe("1/5/2026");
    expect(formatStoredDate(new Date(2026, 10, 22))).toBe("11/22/2026");
  });

  it("stores times as h:mm a", () => {
    expect(formatStoredTime(new Date(2026, 0, 5, 0, 7))).toBe("12:07 AM");
    expect(formatStoredTime(new Date(2026, 0, 5, 9, 3))).toBe("9:03 AM");
    expect(formatStoredTime(new Date(2026, 0, 5, 12, 0))).toBe("12:00 PM");
    expect(formatStoredTime(new Date(2026, 0, 5, 23, 59))).toBe("11:59 PM");
  });

  it("shows dates as dd/MM/yyyy with zero padding", () => {
    expect(formatDisplayDate("1/5/2026")).toBe("05/01/2026");
    expect(formatDisplayDate("11/22/2026")).toBe("22/11/2026");
  });

  it("parses only real calendar dates", () => {
    expect(parseStoredDate("2/29/2028")).toEqual({ year: 2028, month: 2, day: 29 });
    expect(parseStoredDate("2/29/2026")).toBeNull();
    expect(parseStoredDate("13/1/2026")).toBeNull();
    expect(parseStoredDate("01/05/2026")).toBeNull();
  });

  it("sorts days by a yyyy-mm-dd key", () => {
    expect(dayKeyOf("1/5/2026")).toBe("2026-01-05");
    expect(["2/1/2026", "10/1/2025", "1/15/2026"].map(dayKeyOf).sort()).toEqual(["2025-10-01", "2026-01-15", "2026-02-01"]);
  });

  it("says how long a message has left", () => {
    expect(formatTimeLeft(59_000)).toBe("59 s");
    expect(formatTimeLeft(14 * 60_000 + 1)).toBe("15 min");
    expect(formatTimeLeft(60 * 60_000)).toBe("1 h");
    expect(formatTimeLeft(90 * 60_000)).toBe("1 h 30 min");
    expect(formatTimeLeft(-5)).toBe("0 s");
  });

  it("writes sizes the way plan limits are written", () => {
    expect(formatFileSize(1024 * 1024)).toBe("1 MiB");
    expect(formatFileSize(700 * 1024)).toBe("0.7 MiB");
    expect(formatFileSize(120 * 1024 * 1024)).toBe("120 MiB");
    expect(formatFileSize(1.5 * 1024 ** 3)).toBe("1.5 GiB");
    expect(formatFileSize(12 * 1024)).toBe("12 KiB");
    expect(formatFileSize(300)).toBe("300 B");
  });
});
