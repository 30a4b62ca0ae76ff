import { describe, expect, it } from "vitest";
import { isSealedUpload, sealedFileTypeOf, sealedUploadMetadataSchema } from "./sealed-uploads.ts";

const sealed = (epoch: number, length = 60) => `v1.${epoch}.${"A".repeat(length)}`;
const valid = {
  type: "video",
  epoch: "3",
  filename: sealed(3),
  preview: sealed(3),
  file_key: sealed(3, 80),
  message_id: "6f1c1b55-8a53-4b0c-9d7b-4a4f5f6e1a2b",
  date: "3/14/2026",
  time: "9:05 AM",
  user_id: "added by the server",
};
const fieldOf = (input: Record<string, unknown>) => sealedUploadMetadataSchema.safeParse(input).error?.issues[0]?.path.join(".");

describe("sealed upload metadata", () => {
  it("reads the epoch from its digits and keeps the sealed values as sent", () => {
    expect(sealedUploadMetadataSchema.parse(valid)).toMatchObject({ type: "video", epoch: 3, filename: valid.filename });
    expect(isSealedUpload(valid)).toBe(true);
    expect(isSealedUpload({ filename: "a.txt" })).toBe(false);
  });

  it("names the field it refuses", () => {
    expect(fieldOf({ ...valid, type: "text" })).toBe("type");
    expect(fieldOf({ ...valid, epoch: "0" })).toBe("epoch");
    expect(fieldOf({ ...valid, epoch: null })).toBe("epoch");
    expect(fieldOf({ ...valid, filename: "clear.txt" })).toBe("filename");
    expect(fieldOf({ ...valid, preview: sealed(3, 2000) })).toBe("preview");
    expect(fieldOf({ ...valid, file_key: sealed(3, 200) })).toBe("file_key");
    expect(fieldOf({ ...valid, filetype: "video/mp4" })).toBe("filetype");
    expect(fieldOf({ ...valid, filetype: null })).toBe("filetype");
    expect(fieldOf({ ...valid, discussion_id: "6f1c1b55-8a53-4b0c-9d7b-4a4f5f6e1a2b" })).toBe("discussion_id");
    expect(fieldOf({ ...valid, file_key: sealed(4, 80) })).toBe("epoch");
  });
});

describe("a sealed file's declared type", () => {
  it("is the MIME type's image, video or audio, and file for anything else", () => {
    expect(["image/jpeg", "video/mp4", "audio/ogg", "text/plain", "application/pdf", ""].map(sealedFileTypeOf)).toEqual([
      "image",
      "video",
      "audio",
      "file",
      "file",
      "file",
    ]);
  });

  it("makes an SVG a file, as the server did with one in clear: shown inline it could run script", () => {
    expect(sealedFileTypeOf("image/svg+xml")).toBe("file");
  });
});
