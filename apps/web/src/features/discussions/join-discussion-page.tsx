import { DISCUSSION_ROUTES, formatPublicId, joinDiscussionSchema, normalizePublicId } from "@daysync/shared";
import { type FormEvent, useState } from "react";
import { Link, useNavigate } from "react-router";
import { SubmitButton } from "../../components/ui/spinner.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { ApiError } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { useJoinDiscussion, useMyDiscussions } from "./api/discussions.ts";
import "./discussions.css";

const NOT_FOUND = "No discussion has this ID: check it with the person who shared it. It may also have ended.";

/** /discussions/join/:publicId, signed in: the name the others will see, then Join. A member already in it goes straight in. */
export function JoinDiscussionPage({ publicId }: { publicId: string }) {
  const id = normalizePublicId(publicId);
  const mine = useMyDiscussions();
  const join = useJoinDiscussion(id ?? publicId);
  const navigate = useNavigate();
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(id ? null : NOT_FOUND);
  const already = id ? mine.data?.find((d) => d.public_id === id) : undefined;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = joinDiscussionSchema.safeParse({ display_name: name });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? "Enter the name the others will see.");
      return;
    }
    setError(null);
    join.mutate(parsed.data.display_name, {
      onSuccess: ({ discussion }) => void navigate(DISCUSSION_ROUTES.one(discussion.id), { replace: true }),
      onError: (err) => {
        if (err instanceof ApiError && err.status === 404) setProblem(NOT_FOUND);
        else if (err instanceof ApiError && err.field === "display_name") setError(describeError(err));
        else setProblem(describeError(err));
      },
    });
  };

  return (
    <section className="discussion-page" aria-labelledby="join-heading">
      <h1 id="join-heading">Join a discussion</h1>
      {id ? (
        <p>
          ID <strong>{formatPublicId(id)}</strong>
        </p>
      ) : null}
      {already ? (
        <p>
          You are already in “{already.title}”. <Link to={DISCUSSION_ROUTES.one(already.id)}>Open it</Link>
        </p>
      ) : null}
      {problem ? (
        <p className="field-error" role="alert">
          {problem}
        </p>
      ) : null}
      {id && !already ? (
        <form onSubmit={submit} noValidate>
          <p className="muted">The others in it will see this name, never your email.</p>
          <TextField
            label="Your name in this discussion"
            autoComplete="nickname"
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={error ?? undefined}
          />
          <SubmitButton working={join.isPending}>Join</SubmitButton>
        </form>
      ) : null}
    </section>
  );
}
