import { TEXT, TIMINGS } from "@daysync/shared";
import { useEffect, useState } from "react";
import { CheckIcon, CopyIcon } from "../../../components/ui/icons.tsx";
import { copyToClipboard } from "../../../lib/copy-to-clipboard.ts";

type CopyState = "idle" | "copied" | "failed";

export function CopyButton({ text }: { text: string }) {
  const [state, setState] = useState<CopyState>("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), TIMINGS.copyNotice);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <span className="copy">
      <button type="button" className="message-action" onClick={async () => setState((await copyToClipboard(text)) ? "copied" : "failed")}>
        {state === "copied" ? <CheckIcon size={15} /> : <CopyIcon size={15} />}
        {TEXT.copy}
      </button>
      <span className="copy-notice" role="status" data-state={state}>
        {state === "copied" ? TEXT.copied : state === "failed" ? TEXT.copyFailed : ""}
      </span>
    </span>
  );
}
