import {
  APP_ROUTES,
  canExtendBy,
  DISCUSSION_EXTENSION_DAYS,
  DISCUSSION_MAX_AHEAD_DAYS,
  type DiscussionDetails,
  type DiscussionExtensionDays,
  EXTENSION_PRICES,
  NO_PAYMENTS_NOTE,
  PAYMENTS_API,
  PREMIUM_TYPE_ID,
  paymentRedirectSchema,
  renameDiscussionSchema,
  SEALED_TEXT,
  type User,
} from "@daysync/shared";
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useEffect, useState } from "react";
import { Link, useLocation, useNavigate } from "react-router";
import { ConfirmDialog, Modal } from "../../components/ui/dialog.tsx";
import { HourglassIcon } from "../../components/ui/icons.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { api } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { goToPayment, usePaymentsConfig } from "../../lib/payments.ts";
import type { RoomView } from "../../lib/sealing/rooms.ts";
import { CHECKOUT_RETURN_TEXT, useCheckoutReturn } from "../../lib/use-checkout-return.ts";
import { useNow } from "../../lib/use-now.ts";
import { useCloseDiscussion, useExtendDiscussion, useRemoveMember, useRenameDiscussion } from "./api/discussions.ts";
import { JoinRequests } from "./join-requests.tsx";
import { SharePanel } from "./share-panel.tsx";
import { formatDiscussionTimeLeft } from "./time-left.ts";
import "./discussions.css";

type Panel = "share" | "members" | "rename" | "extend" | "end" | "leave" | null;

interface DiscussionHeaderProps {
  details: DiscussionDetails;
  user: User;
  /** An encrypted discussion as this device holds it (its title and names are already opened in `details`). */
  room?: RoomView;
  /** Open the share panel at once (a discussion just created). */
  openShare?: boolean;
}

/** A discussion's title, time left, and what a member can do: Share, Members, Extend; the owner Rename and End, others Leave. */
export function DiscussionHeader({ details, user, openShare = false, room }: DiscussionHeaderProps) {
  const { discussion } = details;
  const [panel, setPanel] = useState<Panel>(openShare ? "share" : null);
  const location = useLocation();
  const navigate = useNavigate();
  // Opened once: a reload of the page (which keeps the history entry's state) does not open it again.
  // biome-ignore lint/correctness/useExhaustiveDependencies: read at the first render only.
  useEffect(() => {
    if (openShare) void navigate(`${location.pathname}${location.search}`, { replace: true, state: null });
  }, []);
  const owner = discussion.role === "owner";
  const close = () => setPanel(null);
  const count = discussion.member_count;
  const checkoutReturn = useCheckoutReturn();

  return (
    <header className="day-header discussion-header">
      <div>
        <h1 className="day-title">{discussion.title}</h1>
        <p className="day-subtitle">
          <Countdown endsAt={discussion.ends_at} />
          <span aria-hidden="true">·</span>
          <span>
            {count} {count === 1 ? "member" : "members"}
          </span>
          <span aria-hidden="true">·</span>
          <span>You are {discussion.display_name}</span>
          <span aria-hidden="true">·</span>
          {discussion.encrypted ? (
            <Link
              to={`${APP_ROUTES.privacy}#who-can-read`}
              title="Only its members' devices can read what is written here; the server sees its size, times and who joined and left."
            >
              {SEALED_TEXT.endToEnd}
            </Link>
          ) : (
            <Link
              to={`${APP_ROUTES.privacy}#who-can-read`}
              title="The server can read what is written in a discussion; your own days are end-to-end encrypted."
            >
              {SEALED_TEXT.notEndToEnd}
            </Link>
          )}
        </p>
        {room?.problem ? (
          <p className="field-error" role="alert">
            {room.problem}
          </p>
        ) : null}
        {checkoutReturn ? (
          <p className="discussion-checkout-return" role="status">
            {CHECKOUT_RETURN_TEXT[checkoutReturn]}
          </p>
        ) : null}
      </div>
      <div className="discussion-actions">
        <button type="button" className="btn btn-primary btn-sm" onClick={() => setPanel("share")}>
          Share
        </button>
        <button type="button" className="btn btn-secondary btn-sm" onClick={() => setPanel("members")}>
          Members
        </button>
        <button type="button" className="btn btn-secondary btn-sm" onClick={() => setPanel("extend")}>
          Extend
        </button>
        {owner ? (
          <>
            <button type="button" className="btn btn-secondary btn-sm" onClick={() => setPanel("rename")}>
              Rename
            </button>
            <button type="button" className="btn btn-danger btn-sm" onClick={() => setPanel("end")}>
              End discussion
            </button>
          </>
        ) : (
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => setPanel("leave")}>
            Leave
          </button>
        )}
      </div>
      {room ? <JoinRequests room={room} /> : null}
      {panel === "share" ? <SharePanel discussion={discussion} room={room} owner={owner} onClose={close} /> : null}
      {panel === "members" ? <MembersPanel details={details} codes={room?.codes} onClose={close} /> : null}
      {panel === "rename" ? (
        <RenameDialog id={discussion.id} title={discussion.title} encrypted={room !== undefined} onClose={close} />
      ) : null}
      {panel === "extend" ? (
        <ExtendDialog
          id={discussion.id}
          endsAt={discussion.ends_at}
          premium={user.subscription_type_id === PREMIUM_TYPE_ID}
          onClose={close}
        />
      ) : null}
      {panel === "end" || panel === "leave" ? (
        <CloseDialog id={discussion.id} how={panel} title={discussion.title} onClose={close} />
      ) : null}
    </header>
  );
}

function Countdown({ endsAt }: { endsAt: number }) {
  const now = useNow();
  const left = endsAt - now;
  return (
    <span className="discussion-countdown" data-soon={left < 60 * 60 * 1000 || undefined}>
      <HourglassIcon size={13} /> Ends in {formatDiscussionTimeLeft(left)}
    </span>
  );
}

function MembersPanel({
  details,
  codes,
  onClose,
}: {
  details: DiscussionDetails;
  codes?: ReadonlyMap<string, string>;
  onClose: () => void;
}) {
  const { discussion, members } = details;
  const remove = useRemoveMember(discussion.id);
  const [removing, setRemoving] = useState<{ id: string; name: string } | null>(null);
  if (removing) {
    return (
      <ConfirmDialog
        title={`Remove ${removing.name}?`}
        confirmLabel="Remove"
        working={remove.isPending}
        error={remove.error ? describeError(remove.error) : null}
        onConfirm={() => remove.mutate(removing.id, { onSuccess: () => setRemoving(null) })}
        onClose={() => setRemoving(null)}
      >
        <p>They leave “{discussion.title}” at once and cannot join it again. Their messages stay.</p>
      </ConfirmDialog>
    );
  }
  return (
    <Modal title="Members" onClose={onClose}>
      {codes ? (
        <p className="muted">
          Each member’s security code is the same on every member’s device when nobody came between you: compare them in person or on a
          call.
        </p>
      ) : null}
      <ul className="member-list" aria-label="Members">
        {members.map((m) => (
          <li key={m.id}>
            <span>
              {m.display_name}
              {m.id === discussion.member_id ? " (you)" : ""}
            </span>
            <span className="member-role">{m.role === "owner" ? "Owner" : "Member"}</span>
            {codes?.get(m.id) ? (
              <span className="member-code">
                Security code <span data-testid="member-code">{codes.get(m.id)}</span>
              </span>
            ) : null}
            {discussion.role === "owner" && m.id !== discussion.member_id ? (
              <button type="button" className="btn btn-secondary btn-sm" onClick={() => setRemoving({ id: m.id, name: m.display_name })}>
                Remove<span className="visually-hidden"> {m.display_name}</span>
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      <div className="dialog-buttons">
        <button type="button" className="btn btn-primary" onClick={onClose}>
          Done
        </button>
      </div>
    </Modal>
  );
}

function RenameDialog({ id, title, encrypted, onClose }: { id: string; title: string; encrypted: boolean; onClose: () => void }) {
  const rename = useRenameDiscussion(id, encrypted);
  const [value, setValue] = useState(title);
  const [error, setError] = useState<string | null>(null);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = renameDiscussionSchema.safeParse({ title: value });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? "Enter a title.");
      return;
    }
    setError(null);
    rename.mutate(parsed.data.title, { onSuccess: onClose, onError: (err) => setError(describeError(err)) });
  };
  return (
    <Modal title="Rename discussion" onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <TextField
          label="Title"
          value={value}
          onChange={(e) => setValue(e.currentTarget.value)}
          error={error ?? undefined}
          autoComplete="off"
        />
        <div className="dialog-buttons">
          <button type="button" className="btn btn-secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={rename.isPending}>
            Save
          </button>
        </div>
      </form>
    </Modal>
  );
}

function ExtendDialog({ id, endsAt, premium, onClose }: { id: string; endsAt: number; premium: boolean; onClose: () => void }) {
  const extend = useExtendDiscussion(id);
  const now = useNow();
  const payments = usePaymentsConfig();
  const allowed = DISCUSSION_EXTENSION_DAYS.filter((days) => canExtendBy(endsAt, days, now));
  const limitNote =
    allowed.length < DISCUSSION_EXTENSION_DAYS.length ? (
      <p>A discussion can end at most {DISCUSSION_MAX_AHEAD_DAYS} days from now.</p>
    ) : null;
  return (
    <Modal title="Extend discussion" onClose={onClose}>
      {premium ? (
        <>
          <p>Keep it, with its messages and files, longer than planned: from its current end.</p>
          {limitNote}
          <ExtensionChoices
            error={extend.error}
            pending={extend.isPending}
            allowed={allowed}
            label={(days) => `Extend by ${days} days`}
            onChoose={(days) => extend.mutate(days, { onSuccess: onClose })}
            onClose={onClose}
          />
        </>
      ) : payments?.payments ? (
        <PayExtension id={id} allowed={allowed} limitNote={limitNote} onClose={onClose} />
      ) : (
        <>
          <p>
            <strong>Extending needs Premium.</strong> A discussion lasts 7 days; a member on the Premium plan can add 7 or 30 days.
          </p>
          {payments ? <p>{NO_PAYMENTS_NOTE}</p> : null}
          <div className="dialog-buttons">
            <button type="button" className="btn btn-secondary" onClick={onClose}>
              Close
            </button>
            <Link to="/dashboard/plan" className="btn btn-primary">
              See the plans
            </Link>
          </div>
        </>
      )}
    </Modal>
  );
}

/** Any member pays once, through Stripe Checkout, and the discussion lasts longer for everyone. */
function PayExtension({
  id,
  allowed,
  limitNote,
  onClose,
}: {
  id: string;
  allowed: readonly number[];
  limitNote: ReactNode;
  onClose: () => void;
}) {
  const pay = useMutation({
    mutationFn: (days: DiscussionExtensionDays) =>
      api.post(PAYMENTS_API.extensionCheckout, { discussion_id: id, days }, paymentRedirectSchema),
    onSuccess: ({ url }) => goToPayment(url),
  });
  return (
    <>
      <p>Keep it, with its messages and files, longer than planned: one member pays, and it lasts longer for everyone.</p>
      {limitNote}
      <ExtensionChoices
        error={pay.error}
        pending={pay.isPending}
        allowed={allowed}
        label={(days) => `Pay ${EXTENSION_PRICES[days]} for ${days} days`}
        onChoose={(days) => pay.mutate(days)}
        onClose={onClose}
      />
    </>
  );
}

/** The error of the last try, Cancel, and a button per extension the 90-day limit still allows. */
function ExtensionChoices(props: {
  error: Error | null;
  pending: boolean;
  allowed: readonly number[];
  label: (days: DiscussionExtensionDays) => string;
  onChoose: (days: DiscussionExtensionDays) => void;
  onClose: () => void;
}) {
  return (
    <>
      {props.error ? (
        <p className="field-error" role="alert">
          {describeError(props.error)}
        </p>
      ) : null}
      <div className="dialog-buttons">
        <button type="button" className="btn btn-secondary" onClick={props.onClose}>
          Cancel
        </button>
        {DISCUSSION_EXTENSION_DAYS.map((days) => (
          <button
            key={days}
            type="button"
            className="btn btn-primary"
            disabled={props.pending || !props.allowed.includes(days)}
            onClick={() => props.onChoose(days)}
          >
            {props.label(days)}
          </button>
        ))}
      </div>
    </>
  );
}

function CloseDialog({ id, how, title, onClose }: { id: string; how: "end" | "leave"; title: string; onClose: () => void }) {
  const close = useCloseDiscussion(id, how);
  return (
    <ConfirmDialog
      title={how === "end" ? "End this discussion?" : "Leave this discussion?"}
      confirmLabel={how === "end" ? "End discussion" : "Leave"}
      working={close.isPending}
      error={close.error ? describeError(close.error) : null}
      onConfirm={() => close.mutate()}
      onClose={onClose}
    >
      <p>
        {how === "end"
          ? `“${title}” ends now for everyone, and its messages and files are deleted.`
          : `You leave “${title}”: it goes from your list, and you can join again with its ID while it lasts.`}
      </p>
    </ConfirmDialog>
  );
}
