import { PageSpinner } from "../components/ui/spinner.tsx";
import { useMe } from "../features/auth/use-me.ts";
import { SignedInFrame } from "./dashboard-route.tsx";
import { NotFound } from "./error-screen.tsx";

/**
 * /admin: an admin gets the signed-in frame around the admin page; anyone else, signed in or not, the app's
 * not-found, as the server answers 404 to them on every admin route.
 */
export function AdminRoute() {
  const me = useMe();
  if (me.isPending) return <PageSpinner />;
  if (me.data?.role !== "admin") return <NotFound />;
  return <SignedInFrame user={me.data} />;
}
