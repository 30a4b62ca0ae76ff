import type { ComponentProps } from "react";
import { TextField } from "./text-field.tsx";

/** An email input as every form asks for one: the email keyboard and autofill, "Email" unless labelled otherwise. */
export function EmailField({ label = "Email", ...input }: Omit<ComponentProps<typeof TextField>, "label" | "type"> & { label?: string }) {
  return <TextField label={label} type="email" autoComplete="email" inputMode="email" placeholder="you@example.com" {...input} />;
}
