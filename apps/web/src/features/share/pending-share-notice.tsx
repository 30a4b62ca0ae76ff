import { useEffect } from "react";
import { useSearchParams } from "react-router";
import { toast } from "react-toastify";

/** /login?shared=pending: something was shared while signed out; it is kept until this browser signs in. */
export function PendingShareNotice() {
  const [params] = useSearchParams();
  const pending = params.get("shared") === "pending";
  useEffect(() => {
    if (pending) toast.info("Sign in to save what you shared. It is kept on this device until then.", { toastId: "share-pending" });
  }, [pending]);
  return null;
}
