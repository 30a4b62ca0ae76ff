import { describe, expect, it } from "vitest";
import { isAppPath } from "./app-routes.ts";

describe("isAppPath", () => {
  it("knows the app's routes, with their parameters and a trailing slash", () => {
    for (const path of ["/", "/landing", "/login", "/login/", "/dashboard", "/dashboard/days/abc", "/discussions/new"]) {
      expect(isAppPath(path), path).toBe(true);
    }
    for (const path of ["/pair", "/pair/ABCD-1234", "/pair/join", "/pair/join/xyz", "/pair/add", "/discussions/join/K3Q9"]) {
      expect(isAppPath(path), path).toBe(true);
    }
  });

  it("refuses anything else", () => {
    for (const path of ["/nope", "/login/extra", "/dashboard/days", "/dashboard/days/a/b", "/pair/a/b", "/discussions", "/%E0%A4%A"]) {
      expect(isAppPath(path), path).toBe(false);
    }
  });
});
