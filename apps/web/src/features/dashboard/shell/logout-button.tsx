/**
 * Logout, which first warns when this is the last device that can read the account's messages and no recovery code
 * is set (issue 43): once it goes, what was sent can no longer be read anywhere, so it offers to make a code first.
 */
import { APP_ROUTES, TEXT } from "@daysync/shared";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useNavigate } from "react-router";
import { Modal } from "../../../components/ui/dialog.tsx";
import { LogoutIcon } from "../../../components/ui/icons.tsx";
import { keysStateQuery, RECOVERY_SECTION_HASH } from "../../../lib/keys-state.ts";
import { useSessionServices } from "../../../lib/session-services.ts";
import { useLogout } from "../../../lib/use-logout.ts";

export const LOGOUT_WARNING_TEXT = {
  title: "Log out of the only device that can read?",
  body: "This is the only device that can read your messages. Once it is logged out, the messages sent before can no longer be read on any device. A recovery code lets a new device read them again.",
  make: "Make a recovery code",
  anyway: "Log out anyway",
};

export function LogoutButton() {
  const logout = useLogout();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { keys } = useSessionServices();
  const [leaving, setLeaving] = useState(false);
  const [warning, setWarning] = useState(false);

  const leave = () => {
    setWarning(false);
    setLeaving(true);
    void logout();
  };
  /** Warns only when the server says no other device holds the key and no recovery code is set; else logs out. */
  const ask = async () => {
    setLeaving(true);
    const state =
      keys.getStatus().state === "ready"
        ? await queryClient.fetchQuery({ ...keysStateQuery, staleTime: 0 }).catch(() => undefined)
        : undefined;
    if (state && state.other_devices_with_current_key === 0 && !state.recovery) {
      setLeaving(false);
      setWarning(true);
      return;
    }
    leave();
  };

  return (
    <>
      <button type="button" className="sidebar-entry" disabled={leaving} onClick={() => void ask()}>
        <LogoutIcon size={18} />
        {TEXT.logout}
      </button>
      {warning ? (
        <Modal title={LOGOUT_WARNING_TEXT.title} onClose={() => setWarning(false)}>
          <p>{LOGOUT_WARNING_TEXT.body}</p>
          <div className="dialog-buttons">
            <button
              type="button"
              className="btn btn-primary"
              onClick={() => {
                setWarning(false);
                void navigate(`${APP_ROUTES.settings}${RECOVERY_SECTION_HASH}`);
              }}
            >
              {LOGOUT_WARNING_TEXT.make}
            </button>
            <button type="button" className="btn btn-danger" onClick={leave}>
              {LOGOUT_WARNING_TEXT.anyway}
            </button>
            {/* biome-ignore lint/a11y/noAutofocus: the safe choice takes the focus when the dialog opens */}
            <button type="button" className="btn btn-secondary" onClick={() => setWarning(false)} autoFocus>
              Cancel
            </button>
          </div>
        </Modal>
      ) : null}
    </>
  );
}
