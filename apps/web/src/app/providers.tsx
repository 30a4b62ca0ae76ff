import { TIMINGS } from "@daysync/shared";
import { QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ToastContainer } from "react-toastify";
import { queryClient } from "../lib/query-client.ts";
import "./providers.css";

export function Providers({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      {children}
      <ToastContainer position="top-right" autoClose={TIMINGS.toastAutoClose} newestOnTop closeOnClick={false} />
    </QueryClientProvider>
  );
}
