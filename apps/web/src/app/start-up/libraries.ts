/**
 * The libraries the app starts with (router, query cache, forms, toasts): evaluated in a task of their own,
 * before the app's code (see main.tsx).
 */
export { zodResolver } from "@hookform/resolvers/zod";
export { QueryClient, QueryClientProvider } from "@tanstack/react-query";
export { useForm } from "react-hook-form";
export { createBrowserRouter, RouterProvider } from "react-router";
export { ToastContainer, toast } from "react-toastify";
