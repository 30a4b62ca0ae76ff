import { CheckIcon, CopyIcon } from "../../components/ui/icons.tsx";
import { useCopy } from "../../lib/copy-to-clipboard.ts";

/** Copy with its outcome said aloud; `label` names what is copied ("Copy ID"). */
export function CopyTextButton({ text, label }: { text: string; label: string }) {
  const { state, copy } = useCopy();
  return (
    <>
      <button type="button" className="btn btn-secondary btn-sm" onClick={() => copy(text)}>
        {state === "copied" ? <CheckIcon size={15} /> : <CopyIcon size={15} />}
        {label}
      </button>
      <span className="visually-hidden" role="status">
        {state === "copied" ? "Copied" : state === "failed" ? "Could not copy" : ""}
      </span>
    </>
  );
}
