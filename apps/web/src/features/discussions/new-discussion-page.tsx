import { createDiscussionSchema, DISCUSSION_ROUTES } from "@daysync/shared";
import { type FormEvent, useState } from "react";
import { useNavigate } from "react-router";
import { type BannerMessage, ErrorBanner } from "../../components/ui/error-banner.tsx";
import { SubmitButton } from "../../components/ui/spinner.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { useCreateDiscussion } from "./api/discussions.ts";
import "./discussions.css";

type Errors = Partial<Record<"title" | "display_name", string>>;

/** /discussions/new: a title and the name the others will see; it opens with its share panel. */
export function NewDiscussionPage() {
  const create = useCreateDiscussion();
  const navigate = useNavigate();
  const [values, setValues] = useState({ title: "", display_name: "" });
  const [errors, setErrors] = useState<Errors>({});
  const [banner, setBanner] = useState<BannerMessage | null>(null);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = createDiscussionSchema.safeParse(values);
    if (!parsed.success) {
      const next: Errors = {};
      for (const issue of parsed.error.issues) {
        const field = issue.path[0];
        if ((field === "title" || field === "display_name") && !next[field]) next[field] = issue.message;
      }
      setErrors(next);
      return;
    }
    setErrors({});
    create.mutate(parsed.data, {
      onSuccess: ({ discussion }) => void navigate(DISCUSSION_ROUTES.one(discussion.id), { state: { share: true } }),
      onError: (error) => {
        const field = error instanceof ApiError ? error.field : undefined;
        if (field === "title" || field === "display_name") setErrors({ [field]: describeError(error) });
        else setBanner({ text: describeError(error), id: Date.now() });
      },
    });
  };

  return (
    <section className="discussion-page" aria-labelledby="new-discussion-heading">
      <h1 id="new-discussion-heading">New discussion</h1>
      <p className="muted">
        A discussion is shared with the people you invite by its ID, link or QR code. It lasts 7 days, then it is deleted with its messages
        and files.
      </p>
      <ErrorBanner message={banner} />
      <form onSubmit={submit} noValidate>
        <TextField
          label="Title"
          autoComplete="off"
          placeholder="Weekend trip"
          value={values.title}
          onChange={(e) => setValues({ ...values, title: e.currentTarget.value })}
          error={errors.title}
        />
        <TextField
          label="Your name in this discussion"
          autoComplete="nickname"
          placeholder="How the others will see you"
          value={values.display_name}
          onChange={(e) => setValues({ ...values, display_name: e.currentTarget.value })}
          error={errors.display_name}
        />
        <SubmitButton working={create.isPending}>Create discussion</SubmitButton>
      </form>
    </section>
  );
}
