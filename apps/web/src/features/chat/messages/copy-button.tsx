import { TEXT } from "@daysync/shared";
import { CheckIcon, CopyIcon } from "../../../components/ui/icons.tsx";
import { useCopy } from "../../../lib/copy-to-clipboard.ts";

export function CopyButton({ text }: { text: string }) {
  const { state, copy } = useCopy();
  return (
    <span className="copy">
      <button type="button" className="message-action" onClick={() => copy(text)}>
        {state === "copied" ? <CheckIcon size={15} /> : <CopyIcon size={15} />}
        {TEXT.copy}
      </button>
      <span className="copy-notice" role="status" data-state={state}>
        {state === "copied" ? TEXT.copied : state === "failed" ? TEXT.copyFailed : ""}
      </span>
    </span>
  );
}
