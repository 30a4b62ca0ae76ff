/** A pairing request's steps commit before the devices waiting on it hear of them (issue 44). */
import type { UnitOfWork } from "../../feed/unit-of-work.ts";
import type { PairingRepository } from "./pairing.repository.ts";

/**
 * Runs one conditional step on a request (true: it took) in a transaction; when it took, `pairing.decided` goes out
 * once that transaction has committed, and never for one that failed.
 */
export function pairingSteps(unitOfWork: UnitOfWork, repo: PairingRepository) {
  return (requestId: string, write: (rows: PairingRepository) => Promise<boolean>): Promise<boolean> =>
    unitOfWork.forNotices(async (work) => {
      const took = await write(repo.in(work.trx));
      if (took) work.notify("pairing.decided", { requestId });
      return took;
    });
}
