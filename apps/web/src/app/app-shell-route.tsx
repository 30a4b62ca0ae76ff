import { TIMINGS } from "@daysync/shared";
import { QueryClientProvider } from "@tanstack/react-query";
import { Outlet } from "react-router";
import { ToastContainer } from "react-toastify";
import { queryClient } from "../lib/query-client.ts";
import "react-toastify/ReactToastify.css";
import "./app-shell-route.css";
import { useSignedInNotice } from "./signed-in-notice.ts";

/**
 * The frame of the signed-in app and its doors (sign-in, registration, pairing): the query cache and
 * the toasts. The public pages sit outside it, so they load neither.
 */
export function AppShellRoute() {
  useSignedInNotice();
  return (
    <QueryClientProvider client={queryClient}>
      <Outlet />
      <ToastContainer position="top-right" autoClose={TIMINGS.toastAutoClose} newestOnTop closeOnClick={false} />
    </QueryClientProvider>
  );
}
