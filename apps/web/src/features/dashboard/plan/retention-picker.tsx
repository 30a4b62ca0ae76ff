import { describeRetention, PREMIUM_RETENTION_CHOICES, type RetentionChoice } from "@daysync/shared";
import { useId, useState } from "react";
import { toast } from "react-toastify";
import { Spinner } from "../../../components/ui/spinner.tsx";
import { describeError } from "../../../lib/api-errors.ts";
import { useSetRetention } from "./use-set-retention.ts";

const HINTS: Record<string, string> = {
  "60": "Quick hand-offs between devices.",
  "1440": "Keep today's notes until tomorrow.",
  unlimited: "Nothing disappears until you say so.",
};

const keyOf = (choice: RetentionChoice) => (choice === null ? "unlimited" : String(choice));

/** The Premium choice of retention: 1 hour, 24 hours or unlimited. */
export function RetentionPicker({ current }: { current: number | null }) {
  const setRetention = useSetRetention();
  const name = useId();
  // Shown from the click on, in the same render as the click, so the controlled radio never flips back;
  // the server's answer (or an error) settles it.
  const [chosen, setChosen] = useState<{ choice: RetentionChoice } | null>(null);
  const choose = (choice: RetentionChoice) => {
    setChosen({ choice });
    setRetention.mutate(choice, {
      onSuccess: () => toast.success(`Messages now last ${describeRetention(choice).toLowerCase()}.`),
      onError: (error) => toast.error(describeError(error)),
      onSettled: () => setChosen(null),
    });
  };
  const selected = chosen ? chosen.choice : current;
  return (
    <fieldset className="retention" disabled={setRetention.isPending} aria-busy={setRetention.isPending}>
      <legend>
        How long your messages last
        {setRetention.isPending ? <Spinner label="Saving" /> : null}
      </legend>
      <div className="retention-options">
        {PREMIUM_RETENTION_CHOICES.map((choice) => {
          const key = keyOf(choice);
          const id = `${name}-${key}`;
          return (
            <div className="retention-option" key={key}>
              <input type="radio" id={id} name={name} value={key} checked={selected === choice} onChange={() => choose(choice)} />
              <label htmlFor={id}>
                <strong>{describeRetention(choice)}</strong>
                <span>{HINTS[key]}</span>
              </label>
            </div>
          );
        })}
      </div>
    </fieldset>
  );
}
