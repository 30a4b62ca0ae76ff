import {
  type AdminAccount,
  type AdminFigures,
  DAY_MS,
  formatDisplayDate,
  formatFileSize,
  formatStoredDate,
  formatStoredTime,
  PREMIUM_TYPE_ID,
} from "@daysync/shared";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useDeferredValue, useState } from "react";
import { toast } from "react-toastify";
import { ConfirmDialog, Modal } from "../../components/ui/dialog.tsx";
import { Spinner } from "../../components/ui/spinner.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { useCopy } from "../../lib/copy-to-clipboard.ts";
import { useCurrentUser } from "../../lib/session-services.ts";
import {
  accountsQueryOptions,
  auditQueryOptions,
  deleteAccount,
  disableAccount,
  enableAccount,
  endPremium,
  figuresQueryOptions,
  grantPremium,
  passwordResetLink,
  reloadAdmin,
} from "./api/admin.ts";
import "../../components/ui/ui.css";
import "./admin.css";

const dateOf = (ms: number) => formatDisplayDate(formatStoredDate(new Date(ms)));
const dateTimeOf = (ms: number) => `${dateOf(ms)} ${formatStoredTime(new Date(ms))}`;
const hourOf = (ms: number) => `${String(new Date(ms).getHours()).padStart(2, "0")}:00`;

/** /admin: the server's figures, its accounts with their actions, and the audit log. Only admins get here (app/admin-route.tsx). */
export function AdminPage() {
  return (
    <div className="app-page admin-page">
      <header>
        <p className="app-page-eyebrow">This server</p>
        <h1>Admin</h1>
      </header>
      <Figures />
      <Accounts />
      <AuditLog />
    </div>
  );
}

function Figures() {
  const figures = useQuery(figuresQueryOptions);
  if (figures.isPending) return <Spinner size="lg" label="Loading the figures" />;
  if (figures.isError) return <p role="alert">{describeError(figures.error)}</p>;
  const f = figures.data;
  const facts: Array<[string, string]> = [
    ["Accounts", String(f.accounts)],
    ["Devices online now", f.devices_online_scope === "all" ? String(f.devices_online) : `${f.devices_online} (this process only)`],
    ["Messages this hour", String(f.messages_last_hour)],
    ["Messages, last 24 hours", String(f.messages_last_day)],
    ["Files this hour", String(f.files_last_hour)],
    ["Files, last 24 hours", String(f.files_last_day)],
    ["Files stored", formatFileSize(f.storage_used)],
    ["Left on the files volume", `${formatFileSize(f.volume_free)} of ${formatFileSize(f.volume_size)}`],
    ["Open discussions", String(f.open_discussions)],
  ];
  return (
    <section className="admin-section" aria-labelledby="admin-figures">
      <h2 id="admin-figures">Figures</h2>
      <dl className="admin-figures">
        {facts.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <HourChart hours={f.hours} />
    </section>
  );
}

/** Messages per hour as bars; the same numbers as a table for whoever cannot see the chart. */
function HourChart({ hours }: { hours: AdminFigures["hours"] }) {
  const max = Math.max(1, ...hours.map((h) => h.messages));
  const width = 24 * 14;
  const height = 80;
  const total = hours.reduce((sum, h) => sum + h.messages, 0);
  return (
    <figure className="admin-chart">
      <svg viewBox={`0 0 ${width} ${height + 14}`} role="img" aria-labelledby="admin-chart-title">
        <title id="admin-chart-title">Messages per hour, last 24 hours</title>
        {hours.map((h, i) => {
          const barHeight = Math.round((h.messages / max) * height);
          return (
            <rect key={h.start} x={i * 14 + 2} y={height - barHeight} width={10} height={barHeight} rx={2}>
              <title>{`${hourOf(h.start)}: ${h.messages} messages, ${h.files} files`}</title>
            </rect>
          );
        })}
        <text x={0} y={height + 12}>
          {hourOf(hours[0]?.start ?? 0)}
        </text>
        <text x={width} y={height + 12} textAnchor="end">
          {hourOf(hours.at(-1)?.start ?? 0)}
        </text>
      </svg>
      <figcaption id="admin-chart-caption">
        Messages per hour over the last 24 hours: {total} in all, at most {max === 1 && total === 0 ? 0 : max} in one hour.
      </figcaption>
      <details>
        <summary>Show as a table</summary>
        <table className="admin-table">
          <thead>
            <tr>
              <th scope="col">Hour</th>
              <th scope="col">Messages</th>
              <th scope="col">Files</th>
            </tr>
          </thead>
          <tbody>
            {hours.map((h) => (
              <tr key={h.start}>
                <td>{hourOf(h.start)}</td>
                <td>{h.messages}</td>
                <td>{h.files}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

type Action = "grant" | "end" | "disable" | "enable" | "delete" | "reset";

function Accounts() {
  const [search, setSearch] = useState("");
  const q = useDeferredValue(search.trim());
  const accounts = useQuery(accountsQueryOptions(q));
  const [open, setOpen] = useState<{ action: Action; account: AdminAccount } | null>(null);
  const me = useCurrentUser();
  return (
    <section className="admin-section" aria-labelledby="admin-accounts">
      <h2 id="admin-accounts">Accounts</h2>
      <div className="admin-search">
        <TextField label="Search by name or email" type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
      </div>
      {accounts.isPending ? <Spinner size="lg" label="Loading accounts" /> : null}
      {accounts.isError ? <p role="alert">{describeError(accounts.error)}</p> : null}
      {accounts.data?.length === 0 ? <p className="muted">No account matches “{q}”.</p> : null}
      {accounts.data?.length ? (
        <div className="admin-table-scroll">
          <table className="admin-table" aria-labelledby="admin-accounts">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Plan</th>
                <th scope="col">Storage</th>
                <th scope="col">Devices</th>
                <th scope="col">Last seen</th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {accounts.data.map((a) => (
                <tr key={a.id} data-account={a.email}>
                  <th scope="row">
                    {a.name}
                    {a.role === "admin" ? <span className="admin-tag">admin</span> : null}
                    {a.disabled_at !== null ? <span className="admin-tag admin-tag-warn">disabled</span> : null}
                  </th>
                  <td>{a.email}</td>
                  <td>
                    {a.title_subscription}
                    <br />
                    <span className="muted">until {dateOf(a.date_expiration_subscription)}</span>
                  </td>
                  <td>{formatFileSize(a.storage_used)}</td>
                  <td>{a.devices}</td>
                  <td>{a.last_seen_at === null ? "never" : dateTimeOf(a.last_seen_at)}</td>
                  <td>{dateOf(a.created_at)}</td>
                  <td>
                    <div className="admin-actions">
                      {a.subscription_type_id === PREMIUM_TYPE_ID ? (
                        <ActionButton label="End Premium" account={a} onClick={() => setOpen({ action: "end", account: a })} />
                      ) : null}
                      <ActionButton
                        label={a.subscription_type_id === PREMIUM_TYPE_ID ? "Change Premium end" : "Grant Premium"}
                        account={a}
                        onClick={() => setOpen({ action: "grant", account: a })}
                      />
                      <ActionButton label="Reset link" account={a} onClick={() => setOpen({ action: "reset", account: a })} />
                      {a.id === me.id ? null : (
                        <>
                          <ActionButton
                            label={a.disabled_at === null ? "Disable" : "Enable"}
                            account={a}
                            onClick={() => setOpen({ action: a.disabled_at === null ? "disable" : "enable", account: a })}
                          />
                          <ActionButton label="Delete" danger account={a} onClick={() => setOpen({ action: "delete", account: a })} />
                        </>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {open ? <ActionDialog action={open.action} account={open.account} onClose={() => setOpen(null)} /> : null}
    </section>
  );
}

function ActionButton({
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

function ActionDialog({ action, account, onClose }: { action: Action; account: AdminAccount; onClose: () => void }) {
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
  const grant = useMutation({
    mutationFn: () => grantPremium(account.id, until),
    onSuccess: () => {
      toast.success(`Premium granted until ${formatDisplayDate(formatStoredDate(new Date(`${until}T12:00:00Z`)))}.`);
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
          {account.name} ({account.email}) gets Premium until the end of this day (UTC); their open devices show it at once.
        </p>
        <TextField label="Premium ends on" type="date" required value={until} onChange={(e) => setUntil(e.target.value)} />
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

function AuditLog() {
  const audit = useQuery(auditQueryOptions);
  return (
    <section className="admin-section" aria-labelledby="admin-audit">
      <h2 id="admin-audit">Audit log</h2>
      {audit.isPending ? <Spinner size="lg" label="Loading the audit log" /> : null}
      {audit.isError ? <p role="alert">{describeError(audit.error)}</p> : null}
      {audit.data?.length === 0 ? <p className="muted">No admin action yet.</p> : null}
      {audit.data?.length ? (
        <div className="admin-table-scroll">
          <table className="admin-table" aria-labelledby="admin-audit">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Account</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {audit.data.map((e) => (
                <tr key={e.id}>
                  <td>{dateTimeOf(e.at)}</td>
                  <td>{e.actor}</td>
                  <td>{e.action}</td>
                  <td>{e.target}</td>
                  <td>{e.detail}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
