/** The spec's file picker as a list: one row per staged file, with its status, Pause/Resume and X, and Send. */
import { TEXT } from "@daysync/shared";
import { formatBytes } from "./format-bytes.ts";
import { UploadStatusLine } from "./upload-status.tsx";
import type { UploadRow, useUploadQueue } from "./use-upload-queue.ts";

type Queue = ReturnType<typeof useUploadQueue>;

function FileRow({ row, queue }: { row: UploadRow; queue: Queue }) {
  const name = row.file.name;
  const finished = row.status === "fail";
  return (
    <li className="staged-file" data-status={row.status}>
      <div className="staged-file-head">
        <p className="file-selected">
          <span className="file-selected-name">{name}</span> <span className="file-selected-size">{formatBytes(row.file.size)}</span>
        </p>
        {row.status === "uploading" ? (
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => queue.pause(row.id)}>
            Pause<span className="visually-hidden"> {name}</span>
          </button>
        ) : null}
        {row.status === "pause" ? (
          <button type="button" className="btn btn-secondary btn-sm" onClick={() => queue.resume(row.id)}>
            Resume<span className="visually-hidden"> {name}</span>
          </button>
        ) : null}
        <button
          type="button"
          className="btn btn-icon file-cancel"
          aria-label={finished ? `Remove ${name}` : `Cancel ${name}`}
          title={finished ? "Remove" : "Cancel"}
          onClick={() => queue.cancel(row.id)}
        >
          ✕
        </button>
      </div>
      <UploadStatusLine row={row} />
    </li>
  );
}

export function StagedFiles({ queue }: { queue: Queue }) {
  const { rows, sendAll } = queue;
  if (!rows.length) return null;
  const ready = rows.filter((r) => r.status === "initial" && !r.queued).length;
  return (
    <section className="staged-files" aria-label="Files to send">
      <ul className="staged-file-list">
        {rows.map((row) => (
          <FileRow key={row.id} row={row} queue={queue} />
        ))}
      </ul>
      {ready ? (
        <button type="button" className="btn btn-primary staged-send" onClick={sendAll}>
          {ready === 1 ? TEXT.sendFile : `Send ${ready} files`}
        </button>
      ) : null}
    </section>
  );
}
