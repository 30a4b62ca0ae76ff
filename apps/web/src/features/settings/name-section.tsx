import { type ChangeNameInput, changeNameSchema } from "@daysync/shared";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { toast } from "react-toastify";
import { Spinner } from "../../components/ui/spinner.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { setMe } from "../../lib/session.ts";
import { useCurrentUser } from "../../lib/session-services.ts";
import { changeName } from "./api/settings.ts";

/** The account's name, as the sidebar and every device show it (they hear the change live). */
export function NameSection() {
  const user = useCurrentUser();
  const queryClient = useQueryClient();
  const { register, handleSubmit, formState, setError, reset } = useForm<ChangeNameInput>({
    resolver: zodResolver(changeNameSchema),
    mode: "onTouched",
    values: { name: user.name },
  });
  const onSubmit = handleSubmit(async ({ name }) => {
    try {
      const { user: updated } = await changeName(name);
      setMe(queryClient, updated);
      reset({ name: updated.name });
      toast.success("Your name was saved.");
    } catch (error) {
      setError("name", { message: describeError(error) });
      if (!(error instanceof ApiError)) toast.error(describeError(error));
    }
  });
  return (
    <section className="settings-section" aria-labelledby="settings-name-title">
      <h2 id="settings-name-title">Name</h2>
      <form className="settings-form" onSubmit={onSubmit} noValidate>
        <TextField label="Your name" autoComplete="name" error={formState.errors.name?.message} {...register("name")} />
        <div className="settings-actions">
          <button type="submit" className="btn btn-primary btn-sm" disabled={formState.isSubmitting || !formState.isDirty}>
            {formState.isSubmitting ? <Spinner /> : null}
            Save name
          </button>
        </div>
      </form>
    </section>
  );
}
