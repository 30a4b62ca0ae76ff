/** The admin page's actions on one account: the button in its row and the dialog each opens (grant, end, disable, enable, delete, reset link). */
import { type AdminAccount, DAY_MS, formatDisplayDate, formatStoredDate, formatStoredTime } from "@daysync/shared";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { toast } from "react-toastify";
import { ConfirmDialog, Modal } from "../../components/ui/dialog.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { useCopy } from "../../lib/copy-to-clipboard.ts";
import { deleteAccount, disableAccount, enableAccount, endPremium, grantPremium, passwordResetLink, reloadAdmin } from "./api/admin.ts";

export type Action = "grant" | "end" | "disable" | "enable" | "delete" | "reset";

export function ActionButton({
  label,
  account,
  danger,
  onClick,
}: {
  label: string;
  account: AdminAccount;
  danger?: boolean;
  onClick: () => void;
}) {
  return (
    <button
      type="button"
      className={`btn btn-sm ${danger ? "btn-danger" : "btn-secondary"}`}
      aria-label={`${label}: ${account.email}`}
      onClick={onClick}
    >
      {label}
    </button>
  );
}

const CONFIRMS: Record<Exclude<Action, "grant" | "reset">, { title: string; confirm: string; text: string; done: string }> = {
  end: {
    title: "End Premium?",
    confirm: "End Premium",
    text: "goes back to the Free plan now, with its retention.",
    done: "Premium ended.",
  },
  disable: {
    title: "Disable this account?",
    confirm: "Disable",
    text: "is signed out on every device at once and cannot sign in until the account is enabled again.",
    done: "Account disabled.",
  },
  enable: { title: "Enable this account?", confirm: "Enable", text: "can sign in again.", done: "Account enabled." },
  delete: {
    title: "Delete this account?",
    confirm: "Delete for good",
    text: "loses everything at once: messages, days, files and devices. Discussions they created end for everyone. This cannot be undone.",
    done: "Account deleted.",
  },
};

const CALLS: Record<Exclude<Action, "grant" | "reset">, (id: string) => Promise<unknown>> = {
  end: endPremium,
  disable: disableAccount,
  enable: enableAccount,
  delete: deleteAccount,
};

export function ActionDialog({ action, account, onClose }: { action: Action; account: AdminAccount; onClose: () => void }) {
  if (action === "grant") return <GrantDialog account={account} onClose={onClose} />;
  if (action === "reset") return <ResetLinkDialog account={account} onClose={onClose} />;
  return <ConfirmAction action={action} account={account} onClose={onClose} />;
}

function ConfirmAction({
  action,
  account,
  onClose,
}: {
  action: Exclude<Action, "grant" | "reset">;
  account: AdminAccount;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const words = CONFIRMS[action];
  const run = useMutation({
    mutationFn: () => CALLS[action](account.id),
    onSuccess: () => {
      toast.success(words.done);
      reloadAdmin(queryClient);
      onClose();
    },
  });
  return (
    <ConfirmDialog
      title={words.title}
      confirmLabel={words.confirm}
      working={run.isPending}
      error={run.isError ? describeError(run.error) : null}
      onConfirm={() => run.mutate()}
      onClose={onClose}
    >
      <p>
        {account.name} ({account.email}) {words.text}
      </p>
    </ConfirmDialog>
  );
}

function GrantDialog({ account, onClose }: { account: AdminAccount; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [until, setUntil] = useState(() => new Date(Date.now() + 30 * DAY_MS).toISOString().slice(0, 10));
  const [noEnd, setNoEnd] = useState(false);
  const grant = useMutation({
    mutationFn: () => grantPremium(account.id, noEnd ? null : until),
    onSuccess: () => {
      toast.success(
        noEnd
          ? "Premium granted with no end date."
          : `Premium granted until ${formatDisplayDate(formatStoredDate(new Date(`${until}T12:00:00Z`)))}.`,
      );
      reloadAdmin(queryClient);
      onClose();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    grant.mutate();
  };
  return (
    <Modal title="Grant Premium" onClose={onClose}>
      <form onSubmit={submit}>
        <p>
          {account.name} ({account.email}) gets Premium until the end of this day (UTC), or with no end date; their open devices show it at
          once.
        </p>
        <label className="admin-check">
          <input type="checkbox" checked={noEnd} onChange={(e) => setNoEnd(e.target.checked)} /> No end date
        </label>
        {noEnd ? null : <TextField label="Premium ends on" type="date" required value={until} onChange={(e) => setUntil(e.target.value)} />}
        {grant.isError ? (
          <p className="field-error" role="alert">
            {describeError(grant.error)}
          </p>
        ) : null}
        <div className="dialog-buttons">
          <button type="button" className="btn btn-secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={grant.isPending}>
            Grant Premium
          </button>
        </div>
      </form>
    </Modal>
  );
}

function ResetLinkDialog({ account, onClose }: { account: AdminAccount; onClose: () => void }) {
  const queryClient = useQueryClient();
  const { state, copy } = useCopy();
  const make = useMutation({
    mutationFn: () => passwordResetLink(account.id),
    onSuccess: () => reloadAdmin(queryClient),
  });
  if (!make.data) {
    return (
      <ConfirmDialog
        title="Make a reset link?"
        confirmLabel="Make the link"
        working={make.isPending}
        error={make.isError ? describeError(make.error) : null}
        onConfirm={() => make.mutate()}
        onClose={onClose}
      >
        <p>
          A one-time link for {account.name} ({account.email}) to set a new password, valid for 30 minutes. Using it signs out every device
          of the account. Hand it over yourself, by a way you trust.
        </p>
      </ConfirmDialog>
    );
  }
  return (
    <Modal title="Reset link" onClose={onClose}>
      <p>Valid until {formatStoredTime(new Date(make.data.expires_at))}, once. It is not shown again.</p>
      <TextField label="Link" readOnly value={make.data.url} onFocus={(e) => e.currentTarget.select()} />
      <span className="visually-hidden" role="status">
        {state === "copied" ? "Copied" : state === "failed" ? "Could not copy" : ""}
      </span>
      <div className="dialog-buttons">
        <button type="button" className="btn btn-secondary" onClick={() => copy(make.data.url)}>
          Copy link
        </button>
        <button type="button" className="btn btn-primary" onClick={onClose}>
          Done
        </button>
      </div>
    </Modal>
  );
}
