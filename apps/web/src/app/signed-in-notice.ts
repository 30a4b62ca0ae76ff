import { SIGNED_IN_NOTICE_COOKIE } from "@daysync/shared";
import { useEffect } from "react";
import { toastLoginSuccess } from "../components/ui/login-toasts.tsx";

/**
 * A sign-in through a provider ends on the server, which leaves a one-minute cookie for the page it returns to:
 * 'Login success / Welcome' is shown once and the cookie cleared.
 */
export function useSignedInNotice() {
  useEffect(() => {
    if (!document.cookie.split("; ").includes(`${SIGNED_IN_NOTICE_COOKIE}=1`)) return;
    // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not in every browser this app serves
    document.cookie = `${SIGNED_IN_NOTICE_COOKIE}=; Max-Age=0; Path=/; SameSite=Lax`;
    toastLoginSuccess();
  }, []);
}
