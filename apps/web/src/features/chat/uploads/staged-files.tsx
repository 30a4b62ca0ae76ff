/** The spec's file picker as a list: one row per staged file, with its status, Pause/Resume and X; the composer's Send sends them. */
import { FileKindIcon, fileKindOf } from "./file-kind.tsx";
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
          <FileKindIcon kind={fileKindOf(row.file.name, row.file.type)} />
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
      <UploadStatusLine row={row} online={queue.online} />
    </li>
  );
}

export function StagedFiles({ queue }: { queue: Queue }) {
  const { rows } = queue;
  if (!rows.length) return null;
  return (
    <section className="staged-files" aria-label="Files to send">
      <ul className="staged-file-list">
        {rows.map((row) => (
          <FileRow key={row.id} row={row} queue={queue} />
        ))}
      </ul>
    </section>
  );
}
