import { describe, expect, it } from "vitest";
import { declaredType } from "./upload.ts";

describe("what a sealed file declares itself to be", () => {
  it("an image, a video or a sound by its extension, whatever its case; anything else is a file, an SVG too", () => {
    expect(["sunset.JPG", "scan.heic", "clip.mp4", "talk.MOV", "voice.m4a", "song.flac"].map(declaredType)).toEqual([
      "image",
      "image",
      "video",
      "video",
      "audio",
      "audio",
    ]);
    expect(["drawing.svg", "notes", "report.pdf", ".png", "archive.tar.gz"].map(declaredType)).toEqual([
      "file",
      "file",
      "file",
      "file",
      "file",
    ]);
  });
});
