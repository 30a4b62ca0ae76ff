import { normalizeShortCode, shortCodeFormSchema } from "@daysync/shared";
import { zodResolver } from "@hookform/resolvers/zod";
import { useForm } from "react-hook-form";
import { TextField } from "../../components/ui/text-field.tsx";

/** The code shown under the QR, typed by hand (when there is no camera, or it will not focus). */
export function ShortCodeForm({ onCode }: { onCode: (code: string) => void }) {
  const { register, handleSubmit, formState } = useForm<{ code: string }>({
    resolver: zodResolver(shortCodeFormSchema),
    mode: "onTouched",
    defaultValues: { code: "" },
  });
  const onSubmit = handleSubmit(({ code }) => {
    const normalized = normalizeShortCode(code);
    if (normalized) onCode(normalized);
  });
  return (
    <form className="pair-code-form" onSubmit={onSubmit} noValidate>
      <TextField
        label="Code shown on the other device"
        placeholder="ABCD-1234"
        autoComplete="off"
        autoCapitalize="characters"
        spellCheck={false}
        error={formState.errors.code?.message}
        {...register("code")}
      />
      <button type="submit" className="btn btn-primary">
        Continue
      </button>
    </form>
  );
}
