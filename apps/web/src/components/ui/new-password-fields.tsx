import { VALIDATION } from "@daysync/shared";
import type { UseFormRegisterReturn } from "react-hook-form";
import { TextField } from "./text-field.tsx";

interface NewPasswordFieldsProps {
  /** "Password" on the register form, "New password" where one is replaced. */
  label?: string;
  placeholder?: string;
  password: UseFormRegisterReturn;
  confirm: UseFormRegisterReturn;
  errors: { password?: string; confirm?: string };
}

/** A new password and its confirmation, with the password rule said under it: register, reset and Settings. */
export function NewPasswordFields({
  label = "New password",
  placeholder = "Your new password",
  password,
  confirm,
  errors,
}: NewPasswordFieldsProps) {
  return (
    <>
      <TextField
        label={label}
        type="password"
        autoComplete="new-password"
        placeholder={placeholder}
        hint={VALIDATION.passwordRule}
        error={errors.password}
        {...password}
      />
      <TextField
        label="Confirm password"
        type="password"
        autoComplete="new-password"
        placeholder="Type it again"
        error={errors.confirm}
        {...confirm}
      />
    </>
  );
}
