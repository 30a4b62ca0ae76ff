import { type AdminAccount, formatFileSize, hasNoEndDate, PREMIUM_TYPE_ID } from "@daysync/shared";
import { useQuery } from "@tanstack/react-query";
import { useDeferredValue, useState } from "react";
import { Spinner } from "../../components/ui/spinner.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { describeError } from "../../lib/api-errors.ts";
import { useCurrentUser } from "../../lib/session-services.ts";
import { accountsQueryOptions, auditQueryOptions } from "./api/admin.ts";
import "../../components/ui/ui.css";
import "./admin.css";
import { type Action, ActionButton, ActionDialog } from "./account-actions.tsx";
import { dateOf, dateTimeOf } from "./admin-dates.ts";
import { Figures } from "./admin-figures.tsx";
import { InviteLink } from "./invite-link.tsx";

/** /admin: the server's figures, its accounts with their actions, and the audit log. Only admins get here (app/admin-route.tsx). */
export function AdminPage() {
  return (
    <div className="app-page admin-page">
      <header>
        <p className="app-page-eyebrow">This server</p>
        <h1>Admin</h1>
      </header>
      <Figures />
      <InviteLink />
      <Accounts />
      <AuditLog />
    </div>
  );
}

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
                    <span className="muted">
                      {hasNoEndDate(a.date_expiration_subscription) ? "no end date" : `until ${dateOf(a.date_expiration_subscription)}`}
                    </span>
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
