import { type JoinRequestAnswer, ROOM_TEXT } from "@daysync/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { TextField } from "../../components/ui/text-field.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { reloadRoom, roomRequestsKey } from "../../lib/sealing/room-hooks.ts";
import { letIn } from "../../lib/sealing/room-joining.ts";
import type { RoomView } from "../../lib/sealing/rooms.ts";
import { useSessionServices } from "../../lib/session-services.ts";

/** How often an open discussion looks for people asking to join by its typed ID, besides the live event that says so. */
const REQUESTS_POLL_MS = 10_000;

/**
 * On a member's open discussion: "Cleo wants to join" for each request by typed ID, with a field for the code the
 * joiner's device shows (docs/protocol/encryption.md, "Admission by typed ID").
 */
export function JoinRequests({ room }: { room: RoomView }) {
  const { rooms } = useSessionServices();
  const requests = useQuery({
    queryKey: roomRequestsKey(room.roomId),
    queryFn: () => rooms.requests(room.roomId),
    enabled: room.holding !== undefined,
    refetchInterval: REQUESTS_POLL_MS,
  });
  // A refused request is listed only to the member who typed the wrong code, for the row to say so.
  const open = (requests.data ?? []).filter((r) => r.state !== "admitted");
  if (open.length === 0) return null;
  return (
    <section className="join-requests" aria-label="Asking to join">
      {open.map((r) => (
        <JoinRequestRow key={r.id} room={room} request={r} />
      ))}
    </section>
  );
}

function JoinRequestRow({ room, request }: { room: RoomView; request: JoinRequestAnswer }) {
  const { rooms } = useSessionServices();
  const queryClient = useQueryClient();
  const [code, setCode] = useState("");
  const admit = useMutation({
    mutationFn: (typed: string) => letIn(rooms, room.roomId, request, typed),
    onSuccess: () => {
      reloadRoom(queryClient, room.roomId);
      void queryClient.invalidateQueries({ queryKey: roomRequestsKey(room.roomId) });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    admit.mutate(code);
  };
  const heading = `${request.name} wants to join`;
  if (request.state === "refused") {
    // Told live by the joiner's device (discussion.join_updated), without waiting for this device's own look.
    return (
      <section className="join-request" aria-label={heading}>
        <p>
          <strong>{heading}</strong>
        </p>
        <p className="field-error" role="alert">
          {ROOM_TEXT.wrongCode}
        </p>
      </section>
    );
  }
  return (
    <form className="join-request" onSubmit={submit} aria-label={heading} noValidate>
      <p>
        <strong>{heading}</strong>
      </p>
      <p className="muted">Ask them for the six-digit code their device shows, and type it here to let them in.</p>
      <TextField
        label="Code shown on their device"
        inputMode="numeric"
        autoComplete="off"
        value={code}
        onChange={(e) => setCode(e.currentTarget.value)}
        error={admit.error ? describeError(admit.error) : undefined}
      />
      <button type="submit" className="btn btn-primary btn-sm" disabled={admit.isPending || admit.isSuccess}>
        {admit.isPending ? "Letting in…" : "Let in"}
      </button>
    </form>
  );
}
