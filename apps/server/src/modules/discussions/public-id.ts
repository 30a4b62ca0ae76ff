/** A discussion's public ID (the one typed or linked to join it), fresh and free, for clear and encrypted ones alike. */
import { randomBytes } from "node:crypto";
import { PUBLIC_ID_ALPHABET, PUBLIC_ID_LENGTH } from "@daysync/shared";
import type { DiscussionsRepository } from "./discussions.repository.ts";

/** A fresh public ID: 10 characters of Crockford base32 (32 divides 256, so each character is uniform). */
export function newPublicId(): string {
  return Array.from(randomBytes(PUBLIC_ID_LENGTH), (b) => PUBLIC_ID_ALPHABET[b % 32]).join("");
}

/** A public ID no discussion has. 32^10 IDs: a collision is rare enough that a few tries always find a free one. */
export async function freePublicId(discussions: Pick<DiscussionsRepository, "publicIdTaken">): Promise<string> {
  let publicId = newPublicId();
  for (let tries = 0; await discussions.publicIdTaken(publicId); tries++) {
    if (tries > 5) throw new Error("No free discussion ID found.");
    publicId = newPublicId();
  }
  return publicId;
}
