/** What `npm start` prints once it listens (issue 43): the addresses to open, in a few lines, and a QR code for a phone. */
import QRCode from "qrcode";
import type { HttpsPlan } from "./home-network.ts";

/** The lines a person reads; `qr`: a terminal QR code of the first address a phone opens (only on a terminal). */
export async function startBanner(options: { httpUrl: string; plan: HttpsPlan; qr: boolean }): Promise<string> {
  const { httpUrl, plan, qr } = options;
  const lines = [`Daysync is running at ${httpUrl}`];
  const { network, listen } = plan;
  if (listen && !network.authority) lines.push(`HTTPS with your certificate on port ${listen.port}`);
  if (network.authority && network.secureUrls.length > 0) {
    lines.push(`On your home network: ${network.secureUrls.join(", ")}`);
    if (network.trustUrl) lines.push(`New phone or computer? Open ${network.trustUrl} first (or scan the code) to trust this server.`);
  }
  let text = `${lines.join("\n")}\n`;
  if (qr && network.trustUrl) text += await QRCode.toString(network.trustUrl, { type: "terminal", small: true, errorCorrectionLevel: "L" });
  return text;
}
