import { TIMINGS } from "@daysync/shared";
import { useEffect, useState } from "react";
import { CheckIcon, CopyIcon } from "../../components/ui/icons.tsx";
import { copyToClipboard } from "../../lib/copy-to-clipboard.ts";

/** Copy with its outcome said aloud and shown for a moment; `label` names what is copied ("Copy ID"). */
export function CopyTextButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), TIMINGS.copyNotice);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <>
      <button
        type="button"
        className="btn btn-secondary btn-sm"
        onClick={async () => setState((await copyToClipboard(text)) ? "copied" : "failed")}
      >
        {state === "copied" ? <CheckIcon size={15} /> : <CopyIcon size={15} />}
        {label}
      </button>
      <span className="visually-hidden" role="status">
        {state === "copied" ? "Copied" : state === "failed" ? "Could not copy" : ""}
      </span>
    </>
  );
}
