import type { KeyRequest } from "@daysync/shared";
import type { KeyRequestsTable } from "../db/schema.ts";
import { type DeviceRow, presentDevice } from "./devices.presenter.ts";

/** A request with what the account's devices need beside it: the requesting device and both sides' keys. */
export interface KeyRequestRow extends KeyRequestsTable {
  device: DeviceRow;
  requester_public_key: string;
  requester_key_id: string;
  /** Null until a device answered, or when the answering session has ended since. */
  approver_public_key: string | null;
  approver_key_id: string | null;
}

export function presentKeyRequest(row: KeyRequestRow): KeyRequest {
  return {
    id: row.id,
    session_id: row.session_id,
    device: presentDevice(row.device),
    status: row.status,
    requester_public_key: row.requester_public_key,
    requester_key_id: row.requester_key_id,
    requester_share: row.requester_share,
    approver_session_id: row.approver_session_id,
    approver_public_key: row.approver_public_key,
    approver_key_id: row.approver_key_id,
    approver_share: row.approver_share,
    approver_confirmation: row.approver_confirmation,
    requester_confirmation: row.requester_confirmation,
    handover_confirmation: row.handover_confirmation,
    failures: Number(row.failures),
    created_at: Number(row.created_at),
    expires_at: Number(row.expires_at),
  };
}
