import { describe, expect, it } from "vitest";
import { COPY_ACTION, notificationTarget } from "./devices.ts";

describe("notificationTarget", () => {
  const text = { url: "/dashboard/days/d1", message_id: "m 1", day_id: "d1", message_type: "text" };

  it("opens the day on a tap, and the day asked to copy the text on the Copy action", () => {
    expect(notificationTarget(text, "")).toBe("/dashboard/days/d1");
    expect(notificationTarget(text, COPY_ACTION)).toBe("/dashboard/days/d1?copy=m%201");
  });

  it("copies only a text of the user's own days, and falls back to the dashboard without a url", () => {
    expect(notificationTarget({ ...text, message_type: "image" }, COPY_ACTION)).toBe("/dashboard/days/d1");
    expect(notificationTarget({ ...text, discussion_id: "s1" }, COPY_ACTION)).toBe("/dashboard/days/d1");
    expect(notificationTarget(null, COPY_ACTION)).toBe("/dashboard");
  });
});
