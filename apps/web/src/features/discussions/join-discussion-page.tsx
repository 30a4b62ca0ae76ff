import {
  DISCUSSION_ROUTES,
  DISCUSSIONS_API,
  formatPublicId,
  joinDiscussionSchema,
  normalizePublicId,
  ROOMS_API,
  responseSchemas,
  roomResponseSchemas,
} from "@daysync/shared";
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { Link, useNavigate } from "react-router";
import { SubmitButton } from "../../components/ui/spinner.tsx";
import { TextField } from "../../components/ui/text-field.tsx";
import { ApiError, api } from "../../lib/api-client.ts";
import { describeError } from "../../lib/api-errors.ts";
import { reloadRoom, useOpenedTitle } from "../../lib/sealing/room-hooks.ts";
import { askToJoin, forgetLinkFragment, linkKeyOnArrival } from "../../lib/sealing/room-joining.ts";
import { useSessionServices } from "../../lib/session-services.ts";
import { useJoinDiscussion, useMyDiscussions } from "./api/discussions.ts";
import "./discussions.css";

const NOT_FOUND = "No discussion has this ID: check it with the person who shared it. It may also have ended.";

/**
 * /discussions/join/:publicId, signed in: the name the others will see, then Join. A member already in it goes
 * straight in. An encrypted discussion is joined with the key of the link's fragment (removed from the address bar at
 * once), or, by typed ID, once a member's device let this one in with the code it shows.
 */
export function JoinDiscussionPage({ publicId }: { publicId: string }) {
  const id = normalizePublicId(publicId);
  const { rooms, applyChange } = useSessionServices();
  const mine = useMyDiscussions();
  const join = useJoinDiscussion(id ?? publicId);
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [link] = useState(linkKeyOnArrival);
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(id ? (link.problem ?? null) : NOT_FOUND);
  const [busy, setBusy] = useState(false);
  const [waiting, setWaiting] = useState<string | null>(null);
  const stop = useRef(new AbortController());
  const already = id ? mine.data?.find((d) => d.public_id === id) : undefined;

  useEffect(() => {
    // The key is read: it leaves the address bar (and so the history, a bookmark, a screenshot of the bar) at once.
    forgetLinkFragment();
    const controller = stop.current;
    return () => controller.abort();
  }, []);

  const opened = async (roomId: string) => {
    // The room may have been read while this device was being let in, before it held a key.
    reloadRoom(queryClient, roomId);
    applyChange({ kind: "discussion.answered", details: await api.get(DISCUSSIONS_API.one(roomId), responseSchemas.discussion) });
    void navigate(DISCUSSION_ROUTES.one(roomId), { replace: true });
  };

  const refused = (err: unknown) => {
    if (err instanceof ApiError && err.status === 404) setProblem(NOT_FOUND);
    else if (err instanceof ApiError && err.field === "display_name") setError(describeError(err));
    else setProblem(describeError(err));
  };

  const joinSealed = async (publicIdToJoin: string, displayName: string) => {
    setBusy(true);
    setProblem(link.problem ?? null);
    try {
      const lookup = await api.get(ROOMS_API.lookup(publicIdToJoin), roomResponseSchemas.lookup);
      if (!lookup.encrypted) {
        join.mutate(displayName, {
          onSuccess: ({ discussion }) => void navigate(DISCUSSION_ROUTES.one(discussion.id), { replace: true }),
          onError: refused,
        });
        return;
      }
      if (link.key) {
        await rooms.joinByLink(publicIdToJoin, link.key, displayName);
        await opened(lookup.id);
        return;
      }
      const asking = await askToJoin(rooms, publicIdToJoin, lookup.id, displayName);
      setWaiting(asking.code);
      await opened(await asking.admitted(stop.current.signal));
    } catch (err) {
      if (stop.current.signal.aborted) return;
      setWaiting(null);
      refused(err);
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const parsed = joinDiscussionSchema.safeParse({ display_name: name });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? "Enter the name the others will see.");
      return;
    }
    setError(null);
    if (id) void joinSealed(id, parsed.data.display_name);
  };

  if (waiting) {
    return (
      <section className="discussion-page" aria-labelledby="join-heading">
        <h1 id="join-heading">Waiting for a member to let you in</h1>
        <p>Tell a member of the discussion this code: they type it on their device to let you in.</p>
        <p className="join-code" data-testid="join-code">
          <span className="visually-hidden">Your code: </span>
          {waiting}
        </p>
        <p className="muted">This page moves on by itself once you are in. The request ends after 10 minutes.</p>
      </section>
    );
  }

  return (
    <section className="discussion-page" aria-labelledby="join-heading">
      <h1 id="join-heading">Join a discussion</h1>
      {id ? (
        <p>
          ID <strong>{formatPublicId(id)}</strong>
        </p>
      ) : null}
      {already ? <AlreadyIn id={already.id} title={already.title} /> : null}
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
          <SubmitButton working={busy || join.isPending}>Join</SubmitButton>
        </form>
      ) : null}
    </section>
  );
}

function AlreadyIn({ id, title }: { id: string; title: string }) {
  return (
    <p>
      You are already in “{useOpenedTitle(id, title)}”. <Link to={DISCUSSION_ROUTES.one(id)}>Open it</Link>
    </p>
  );
}
