export { fetchHttpStack, isUnreachable } from "./fetch-http-stack.ts";
export { isKeyMovedAnswer, type KeyCatchUp, resealOnce } from "./reseal.ts";
export { type SealedTextSend, type Sealer, sealText, sendSealedText } from "./sealed-text.ts";
export {
  blobFile,
  type FileReader,
  type FileToSeal,
  type PlainFile,
  plainBytesOf,
  RECORDS_PER_PATCH,
  SEALED_CHUNK_SIZE,
  type SealedUpload,
  sealedUploadStart,
  sealingFileReader,
} from "./sealed-upload.ts";
export { isKeyMovedUpload, serverErrorOf, statusOf, type UploadRun, uploadToEnd } from "./tus-answers.ts";
export { uploadSealedOnce } from "./upload-once.ts";
