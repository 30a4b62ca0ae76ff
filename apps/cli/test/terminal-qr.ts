/** Reads back a QR code drawn in a terminal with half blocks (qrcode's small renderer), the way a phone camera would. */
import jsQR from "jsqr";

const HALF_BLOCKS: Record<string, [number, number]> = { " ": [0, 0], "▄": [0, 1], "▀": [1, 0], "█": [1, 1] };
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes start with ESC.
const ANSI = /\u001b\[[0-9;]*m/g;

/** The text encoded in the first QR code of `output`, or null when none can be read. */
export function decodeTerminalQr(output: string): string | null {
  const lines = output
    .replace(ANSI, "")
    .split("\n")
    .filter((line) => line.length >= 21 && /^[ ▄▀█]+$/.test(line));
  // The renderer's last line is only the lower edge of the white border, drawn in white: no dark module.
  if (lines.length > 0 && /^▀+$/.test(lines.at(-1) ?? "")) lines[lines.length - 1] = " ".repeat(lines.at(-1)?.length ?? 0);
  const rows: number[][] = [];
  for (const line of lines) {
    const top: number[] = [];
    const bottom: number[] = [];
    for (const ch of line) {
      const [t, b] = HALF_BLOCKS[ch] ?? [0, 0];
      top.push(t);
      bottom.push(b);
    }
    rows.push(top, bottom);
  }
  if (rows.length === 0) return null;
  const quiet = 4;
  const scale = 4;
  const width = ((rows[0]?.length ?? 0) + 2 * quiet) * scale;
  const height = (rows.length + 2 * quiet) * scale;
  const pixels = new Uint8ClampedArray(width * height * 4).fill(255);
  rows.forEach((row, y) => {
    row.forEach((dark, x) => {
      if (!dark) return;
      for (let dy = 0; dy < scale; dy++) {
        for (let dx = 0; dx < scale; dx++) {
          const i = (((y + quiet) * scale + dy) * width + (x + quiet) * scale + dx) * 4;
          pixels[i] = pixels[i + 1] = pixels[i + 2] = 0;
        }
      }
    });
  });
  return jsQR(pixels, width, height)?.data ?? null;
}
