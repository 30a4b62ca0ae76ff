/** The tus requests a device makes, for server tests of uploads. */
import http from "node:http";
import { API, formatStoredDate, formatStoredTime } from "@daysync/shared";
import type { Device } from "./test-server.ts";

export const TUS = { "tus-resumable": "1.0.0" };

export const b64 = (text: string) => Buffer.from(text).toString("base64");

/** Upload-Metadata as the app sends it, for a file sent now; `fields` replaces any of it. */
export function metadata(filename: string, now: number, messageId: string = crypto.randomUUID(), fields: Record<string, string> = {}) {
  const at = new Date(now);
  const all = {
    filename,
    filetype: "application/octet-stream",
    message_id: messageId,
    date: formatStoredDate(at),
    time: formatStoredTime(at),
    ...fields,
  };
  return {
    messageId,
    header: Object.entries(all)
      .map(([k, v]) => `${k} ${b64(v)}`)
      .join(","),
  };
}

/** Starts an upload; returns the answer and its URL path. */
export async function create(device: Device, size: number, meta: string) {
  const res = await device.raw("POST", API.uploads, { headers: { ...TUS, "upload-length": String(size), "upload-metadata": meta } });
  return { res, location: res.headers.get("location") ?? "" };
}

export function patch(device: Device, location: string, offset: number, chunk: Uint8Array) {
  return device.raw("PATCH", location, {
    headers: { ...TUS, "upload-offset": String(offset), "content-type": "application/offset+octet-stream" },
    body: chunk,
  });
}

/**
 * A PATCH of `length` bytes whose body the test sends when it likes, as a slow network would: `send` writes some
 * now, `finish` the last ones and resolves with the answer.
 */
export function streamingPatch(device: Device, location: string, offset: number, length: number) {
  const request = http.request(device.baseUrl + location, {
    method: "PATCH",
    headers: {
      ...TUS,
      ...(device.cookie ? { cookie: device.cookie } : {}),
      "upload-offset": String(offset),
      "content-type": "application/offset+octet-stream",
      "content-length": String(length),
    },
  });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.on("error", reject);
    request.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
  });
  return {
    send: (chunk: Uint8Array) =>
      new Promise<void>((resolve, reject) => request.write(chunk, (error) => (error ? reject(error) : resolve()))),
    finish(chunk: Uint8Array) {
      request.end(chunk);
      return answer;
    },
  };
}

export async function offsetOf(device: Device, location: string) {
  const res = await device.raw("HEAD", location, { headers: TUS });
  return { status: res.status, offset: Number(res.headers.get("upload-offset")) };
}

/** Uploads a whole file in one PATCH; returns the upload id. */
export async function uploadFile(device: Device, data: Uint8Array, meta: string): Promise<string> {
  const { res, location } = await create(device, data.length, meta);
  if (res.status !== 201) throw new Error(`upload refused: ${res.status} ${await res.text()}`);
  const done = await patch(device, location, 0, data);
  if (done.status !== 204) throw new Error(`upload failed: ${done.status} ${await done.text()}`);
  return location.split("/").pop() ?? "";
}
