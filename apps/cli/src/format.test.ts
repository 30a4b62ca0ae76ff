import { describe, expect, it } from "vitest";
import { fitFileName, safeFileName } from "./commands/get.ts";
import { formatBytes, parseDisplayDate, preview } from "./format.ts";
import { normalizeServerUrl } from "./server-url.ts";

describe("what a person types", () => {
  it("reads DD/MM/YYYY as the stored M/d/yyyy and refuses what is no date", () => {
    expect(parseDisplayDate("24/11/2026")).toBe("11/24/2026");
    expect(parseDisplayDate("01/02/2026")).toBe("2/1/2026");
    expect(parseDisplayDate("10/10/2026")).toBe("10/10/2026");
    expect(parseDisplayDate("31/02/2026")).toBeNull();
    expect(parseDisplayDate("2026-11-24")).toBeNull();
  });

  it("takes a server address with or without scheme, keeping only its origin", () => {
    expect(normalizeServerUrl("https://daysync.example.com/dashboard")).toBe("https://daysync.example.com");
    expect(normalizeServerUrl("daysync.example.com")).toBe("https://daysync.example.com");
    expect(normalizeServerUrl("localhost:3000")).toBe("http://localhost:3000");
    expect(() => normalizeServerUrl("ftp://example.com")).toThrow("must start with https:// or http://");
  });
});

describe("what the command line shows", () => {
  it("sizes in binary units like the server's plan limits", () => {
    expect(formatBytes(12)).toBe("12 B");
    expect(formatBytes(1536)).toBe("1.5 KiB");
    expect(formatBytes(3 * 1024 * 1024)).toBe("3 MiB");
    expect(formatBytes(100 * 1024 * 1024)).toBe("100 MiB");
  });

  it("one line of a long or multi-line text", () => {
    expect(preview("short")).toBe("short");
    expect(preview("first\nsecond")).toBe("first …");
    expect(preview("x".repeat(100), 10)).toBe(`${"x".repeat(9)}…`);
  });

  it("a downloaded file's name never leaves the folder it is saved in", () => {
    expect(safeFileName("photo.jpg")).toBe("photo.jpg");
    expect(safeFileName("../../.bashrc")).toBe(".bashrc");
    expect(safeFileName("C:\\Users\\x\\evil.exe")).toBe("evil.exe");
    expect(safeFileName("..")).toBe("download");
    expect(safeFileName('a<b>:"c|?*.txt')).toBe("a_b___c___.txt");
    // No control character reaches the disk either, C1 and DEL included (issue 42): a later `ls` would print it.
    expect(safeFileName("a\u001b]52;c;eA==\u0007\u009b31m\u007f.txt")).toBe("a_]52;c;eA==__31m_.txt");
  });

  it("a name too long for the file system is cut between characters, its extension kept", () => {
    expect(fitFileName("short.txt", 20)).toBe("short.txt");
    // é is 2 bytes: 17 bytes of room before ".txt" hold 8 of them, not 8½.
    expect(fitFileName(`${"é".repeat(30)}.txt`, 21)).toBe(`${"é".repeat(8)}.txt`);
    expect(fitFileName(`${"😀".repeat(10)}.pdf`, 21)).toBe("😀😀😀😀.pdf");
    // An "extension" too long to be one is cut with the rest.
    expect(fitFileName(`a.${"b".repeat(50)}`, 10)).toBe(`a.${"b".repeat(8)}`);
    const long = fitFileName(`${"日".repeat(200)}.tar.gz`);
    expect(long.endsWith("日.gz")).toBe(true);
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(242);
  });
});
