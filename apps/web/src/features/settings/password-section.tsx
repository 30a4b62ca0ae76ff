import { type ChangePasswordInput, type ChangePasswordRequest, changePasswordSchema } from "@daysync/shared";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { useForm } from "react-hook-form";
import { toast } from "react-toastify";
import { NewPasswordFields } from "../../components/ui/new-password-fields.tsx";
import { Spinner } from "../../components/ui/spinner.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { useSessionServices } from "../../lib/session-services.ts";
import { changePassword, reloadConfirmation } from "./api/settings.ts";
import { reloadSignInMethods } from "./api/sign-in-methods.ts";

const FIELDS = ["current_password", "password", "confirm_password"] as const;
const isField = (name: string | undefined): name is (typeof FIELDS)[number] => FIELDS.some((f) => f === name);

/**
 * Changes the password with the current one, or gives an account made through a provider its first (after a
 * fresh check there). The other devices are signed out unless "Keep my other devices signed in" is ticked.
 */
export function PasswordSection({ hasPassword, freshCheck }: { hasPassword: boolean; freshCheck: ReactNode }) {
  const queryClient = useQueryClient();
  const { keys } = useSessionServices();
  // The server's refusal to sign out the last devices that hold the key (403 `key_holder_needed`): shown under the
  // checkbox until the next try, with what this device can do instead.
  const [keyHolderNeeded, setKeyHolderNeeded] = useState<string | null>(null);
  const { register, handleSubmit, formState, setError, reset } = useForm<ChangePasswordRequest, unknown, ChangePasswordInput>({
    resolver: zodResolver(changePasswordSchema),
    mode: "onTouched",
    defaultValues: { current_password: "", password: "", confirm_password: "", keep_other_devices: false },
  });
  const onSubmit = handleSubmit(async (values) => {
    if (hasPassword && !values.current_password) {
      setError("current_password", { message: "Enter your current password." });
      return;
    }
    setKeyHolderNeeded(null);
    try {
      const { signed_out } = await changePassword(hasPassword ? values : { ...values, current_password: undefined });
      // The devices signed out leave the account's key with them: this device makes the next epoch now.
      if (signed_out > 0) void keys.rotateNow({ keepOnly: "self" });
      reset();
      const others =
        signed_out === 0 ? "" : signed_out === 1 ? " 1 other device was signed out." : ` ${signed_out} other devices were signed out.`;
      toast.success(
        `${hasPassword ? "Your password was changed." : "Your password is set: you can sign in with your email too."}${others}`,
      );
      reloadSignInMethods(queryClient);
      reloadConfirmation(queryClient);
    } catch (error) {
      const text = describeError(error);
      if (error instanceof ApiError && error.code === "key_holder_needed")
        setKeyHolderNeeded(`${text} Or tick "Keep my other devices signed in" to change the password alone.`);
      else if (error instanceof ApiError && isField(error.field)) setError(error.field, { message: text });
      else toast.error(text);
    }
  });
  const { errors } = formState;
  return (
    <section className="settings-section" aria-labelledby="settings-password-title">
      <h2 id="settings-password-title">{hasPassword ? "Password" : "Set a password"}</h2>
      {hasPassword ? null : (
        <>
          <p className="muted">
            This account was made through a sign-in provider and has no password. Set one to sign in with your email too.
          </p>
          {freshCheck}
        </>
      )}
      <form className="settings-form" onSubmit={onSubmit} noValidate>
        {hasPassword ? (
          <TextField
            label="Current password"
            type="password"
            autoComplete="current-password"
            error={errors.current_password?.message}
            {...register("current_password")}
          />
        ) : null}
        <NewPasswordFields
          password={register("password")}
          confirm={register("confirm_password")}
          errors={{ password: errors.password?.message, confirm: errors.confirm_password?.message }}
        />
        <label className="settings-check">
          <input type="checkbox" {...register("keep_other_devices")} />
          Keep my other devices signed in
        </label>
        {keyHolderNeeded ? (
          <p className="field-error" role="alert">
            {keyHolderNeeded}
          </p>
        ) : null}
        <div className="settings-actions">
          <button type="submit" className="btn btn-primary btn-sm" disabled={formState.isSubmitting}>
            {formState.isSubmitting ? <Spinner /> : null}
            {hasPassword ? "Change password" : "Set password"}
          </button>
        </div>
      </form>
    </section>
  );
}
