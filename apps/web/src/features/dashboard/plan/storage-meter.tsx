import { formatFileSize } from "@daysync/shared";
import { useId } from "react";
import { useStorage, useUploadLimit } from "../api/plan-storage.ts";

/** The plan's files: storage used against what it allows (a meter with "X of Y used") and the largest file it takes. */
export function StorageMeter() {
  const storage = useStorage();
  const uploadLimit = useUploadLimit();
  const labelId = useId();
  const { used, limit } = storage.data ?? { used: 0, limit: 0 };
  const share = limit > 0 ? Math.min(1, used / limit) : 0;
  const usedText = `${formatFileSize(used)} of ${formatFileSize(limit)} used`;
  return (
    <section className="plan-card" aria-labelledby={labelId}>
      <h2 id={labelId}>Files</h2>
      {storage.isError ? (
        <p className="plan-note" role="alert">
          Your storage could not be read just now. Reload the page to try again.
        </p>
      ) : storage.data ? (
        <div className="storage">
          <meter
            className={share >= 0.9 ? "storage-meter storage-meter-full" : "storage-meter"}
            aria-labelledby={labelId}
            aria-valuetext={usedText}
            min={0}
            max={limit}
            value={Math.min(used, limit)}
          />
          <p className="storage-text">{usedText}</p>
        </div>
      ) : (
        <p className="plan-note">Reading your storage…</p>
      )}
      {uploadLimit.data ? <p className="plan-note">Each file can be up to {uploadLimit.data.label}.</p> : null}
    </section>
  );
}
