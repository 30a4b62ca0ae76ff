/** What kind of file a message or a staged file is, as an icon with a name for screen readers. */
import type { Message } from "@daysync/shared";
import { ArchiveIcon, AudioIcon, FileIcon, FilePdfIcon, FileTextIcon, ImageIcon, VideoIcon } from "../../../components/ui/icons.tsx";

export type FileKind = "image" | "video" | "audio" | "pdf" | "archive" | "text" | "other";

const ARCHIVE = /\.(zip|rar|7z|tar|gz|tgz|bz2|xz|zst)$/i;
const TEXT = /\.(txt|md|csv|tsv|json|xml|ya?ml|log|ini|toml|html?|css|js|ts|py|rtf|docx?|odt)$/i;

/** From the message's type (the server's reading of the bytes) or a MIME type, then the name's extension. */
export function fileKindOf(filename: string, type: Message["type"] | string): FileKind {
  const major = type.split("/")[0];
  if (major === "image" || major === "video" || major === "audio") return major;
  if (type === "application/pdf" || /\.pdf$/i.test(filename)) return "pdf";
  if (ARCHIVE.test(filename)) return "archive";
  if (major === "text" || TEXT.test(filename)) return "text";
  return "other";
}

const KINDS = {
  image: { label: "Image", Icon: ImageIcon },
  video: { label: "Video", Icon: VideoIcon },
  audio: { label: "Audio", Icon: AudioIcon },
  pdf: { label: "PDF document", Icon: FilePdfIcon },
  archive: { label: "Archive", Icon: ArchiveIcon },
  text: { label: "Text document", Icon: FileTextIcon },
  other: { label: "File", Icon: FileIcon },
} as const;

export function FileKindIcon({ kind }: { kind: FileKind }) {
  const { label, Icon } = KINDS[kind];
  return (
    <span className="file-kind" data-kind={kind} role="img" aria-label={label} title={label}>
      <Icon size={16} />
    </span>
  );
}
