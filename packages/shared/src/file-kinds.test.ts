import { describe, expect, it } from "vitest";
import { fileMessageType } from "./file-kinds.ts";

describe("a sealed file's declared type", () => {
  it("is the MIME type's image, video or audio, and file for anything else", () => {
    expect(["image/jpeg", "video/mp4", "audio/ogg", "text/plain", "application/pdf", ""].map(fileMessageType)).toEqual([
      "image",
      "video",
      "audio",
      "file",
      "file",
      "file",
    ]);
  });

  it("makes an SVG a file, as the server did with one in clear: shown inline it could run script", () => {
    expect(fileMessageType("image/svg+xml")).toBe("file");
  });
});
