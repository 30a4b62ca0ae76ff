import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, startTestServer, type TestServer } from "../../testing/test-server.ts";
import { create, metadata, patch, TUS } from "../../testing/tus-client.ts";

let server: TestServer;
let device: Device;
beforeAll(async () => {
  server = await startTestServer();
  device = new Device(server.url);
  await device.register("Lia", "lia@example.com");
});
afterAll(() => server.close());

describe("what an upload may declare", () => {
  it("refuses a file name with line breaks or other control characters with a 400 naming filename", async () => {
    for (const name of ["two\r\nlines.txt", "nul\u0000.txt", "bell\u0007.txt", "tab\there.txt", "del\u007f.txt", "c1\u0085.txt"]) {
      const { res } = await create(device, 10, metadata(name, server.clock.now()).header);
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(await res.json()).toEqual({
        error: { code: "validation", message: "filename must not contain line breaks or other control characters.", field: "filename" },
      });
    }
  });

  it("says a body longer than its Upload-Length is too long for the upload, not for the plan", async () => {
    const message = "This request sends more bytes than the upload's Upload-Length.";
    const { location } = await create(device, 10, metadata("short.bin", server.clock.now()).header);
    const withLength = await patch(device, location, 0, new Uint8Array(20));
    expect(withLength.status).toBe(413);
    expect(await withLength.json()).toEqual({ error: { code: "payload_too_large", message } });

    // Without a Content-Length, the bytes are counted as they arrive.
    const chunked = await fetch(server.url + location, {
      method: "PATCH",
      headers: { ...TUS, cookie: device.cookie, "upload-offset": "0", "content-type": "application/offset+octet-stream" },
      body: new Blob([new Uint8Array(20)]).stream(),
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(await chunked.json()).toEqual({ error: { code: "payload_too_large", message } });
  });
});
