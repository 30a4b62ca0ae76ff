import { describe, expect, it } from "vitest";
import { hostPermissionOf, serverAddressSchema } from "./server-address.ts";

const read = (typed: string) => {
  const result = serverAddressSchema.safeParse(typed);
  return result.success ? result.data : result.error.issues[0]?.message;
};

describe("the server's address as typed", () => {
  it("is read into its origin, https when no scheme is typed", () => {
    expect(read("  daysync.example.com ")).toBe("https://daysync.example.com");
    expect(read("https://daysync.example.com/dashboard?x=1")).toBe("https://daysync.example.com");
    expect(read("http://192.168.1.20:8080")).toBe("http://192.168.1.20:8080");
  });

  it("refuses what is not a web address, in words", () => {
    expect(read("")).toBe("Enter your Daysync server's address.");
    for (const typed of ["not a server", "ftp://daysync.example.com", "javascript:alert(1)", "https://"])
      expect(read(typed)).toBe("That is not a web address. Enter it like https://daysync.example.com.");
  });

  it("asks permission for that host only, without a port (Firefox's patterns have none)", () => {
    expect(hostPermissionOf("http://127.0.0.1:8080")).toBe("http://127.0.0.1/*");
    expect(hostPermissionOf("https://daysync.example.com")).toBe("https://daysync.example.com/*");
  });
});
