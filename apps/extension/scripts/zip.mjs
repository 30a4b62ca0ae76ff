/**
 * Packs `dist/` into `daysync-extension.zip` (stored in `apps/extension/`), the file to load or publish in Chrome's
 * and Firefox's stores. Written with Node alone (deflate and CRC-32 from zlib), so a build needs no zip program.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { crc32, deflateRawSync } from "node:zlib";

const root = path.resolve(import.meta.dirname, "..");
const dist = path.join(root, "dist");
const out = path.join(root, "daysync-extension.zip");

const filesUnder = (folder) =>
  readdirSync(folder)
    .sort()
    .flatMap((name) => {
      const full = path.join(folder, name);
      return statSync(full).isDirectory() ? filesUnder(full) : [full];
    });

const locals = [];
const centrals = [];
let offset = 0;
for (const file of filesUnder(dist)) {
  const name = Buffer.from(path.relative(dist, file).split(path.sep).join("/"));
  const bytes = readFileSync(file);
  const packed = deflateRawSync(bytes, { level: 9 });
  const crc = crc32(bytes);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(0, 6);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(0, 10); // time and date: left at zero, so the same dist makes the same zip
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(packed.length, 18);
  local.writeUInt32LE(bytes.length, 22);
  local.writeUInt16LE(name.length, 26);
  local.writeUInt16LE(0, 28);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(0, 8);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(0, 12);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(packed.length, 20);
  central.writeUInt32LE(bytes.length, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt32LE(offset, 42);
  locals.push(local, name, packed);
  centrals.push(central, name);
  offset += local.length + name.length + packed.length;
}
const directory = Buffer.concat(centrals);
const end = Buffer.alloc(22);
end.writeUInt32LE(0x06054b50, 0);
end.writeUInt16LE(centrals.length / 2, 8);
end.writeUInt16LE(centrals.length / 2, 10);
end.writeUInt32LE(directory.length, 12);
end.writeUInt32LE(offset, 16);
writeFileSync(out, Buffer.concat([...locals, directory, end]));
console.log(`${path.relative(process.cwd(), out)}: ${centrals.length / 2} files`);
