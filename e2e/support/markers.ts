/**
 * Unique markers to send through the app, and a search for them in whatever the server keeps or says, in each form
 * a stored or logged copy could take: UTF-8, UTF-16LE, hex, and base64 / base64url at each of the three alignments.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

export function marker(name: string): string {
  return `blind-${name}-${randomBytes(6).toString("hex")}`;
}

/** The byte strings a copy of `text` would contain. Base64 drops the characters its neighbours change. */
export function formsOf(text: string): { form: string; bytes: Buffer }[] {
  const utf8 = Buffer.from(text, "utf8");
  const forms = [
    { form: "UTF-8", bytes: utf8 },
    { form: "UTF-16LE", bytes: Buffer.from(text, "utf16le") },
    { form: "hex", bytes: Buffer.from(utf8.toString("hex")) },
  ];
  for (const shift of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(shift), utf8]).toString("base64");
    const core = encoded.slice(Math.ceil((shift * 8) / 6), -4);
    forms.push({ form: `base64+${shift}`, bytes: Buffer.from(core) });
    forms.push({ form: `base64url+${shift}`, bytes: Buffer.from(core.replaceAll("+", "-").replaceAll("/", "_")) });
  }
  return forms;
}

/** Where each marker shows in `haystack`, as "marker (form) in where". */
export function findMarkers(markers: string[], haystack: Buffer, where: string): string[] {
  const found: string[] = [];
  for (const text of markers)
    for (const { form, bytes } of formsOf(text)) if (haystack.includes(bytes)) found.push(`${text} (${form}) in ${where}`);
  return found;
}

/** Every file under `folder`, with its path relative to it. */
export function filesUnder(folder: string): { name: string; bytes: Buffer }[] {
  return readdirSync(folder, { recursive: true, encoding: "utf8" })
    .map((name) => path.join(folder, name))
    .filter((file) => statSync(file, { throwIfNoEntry: false })?.isFile())
    .map((file) => ({ name: path.relative(folder, file), bytes: readFileSync(file) }));
}
