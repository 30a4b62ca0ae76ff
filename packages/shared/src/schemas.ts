/** Request contracts, shared by the app's forms and the server's validation. */
import { z } from "zod";
import { parseStoredDate, STORED_DATE_PATTERN, STORED_TIME_PATTERN } from "./formats.ts";
import { PREMIUM_RETENTION_CHOICES } from "./plans.ts";
import { chosenName, hasNoNul, isWellFormed, loneSurrogateMessage, text } from "./text.ts";
import { PASSWORD_MIN_LENGTH, VALIDATION } from "./ui-text.ts";

const email = z
  .string({ error: VALIDATION.emailRequired })
  .trim()
  .min(1, VALIDATION.emailRequired)
  .max(254, VALIDATION.emailInvalid)
  .refine(hasNoNul, VALIDATION.emailInvalid)
  .pipe(z.email(VALIDATION.emailInvalid));

/** Never stored, so NUL is no harm; half a character would hash as a replacement character, so it is refused. */
export const passwordSchema = z
  .string({ error: VALIDATION.passwordRequired })
  .min(1, VALIDATION.passwordRequired)
  .max(256, "Password must be at most 256 characters.")
  .refine(isWellFormed, loneSurrogateMessage("A password"));

export const loginSchema = z.object({ email, password: passwordSchema });
export type LoginInput = z.infer<typeof loginSchema>;

export const confirmPasswordSchema = z
  .string({ error: VALIDATION.confirmRequired })
  .min(1, VALIDATION.confirmRequired)
  .refine(isWellFormed, loneSurrogateMessage("A password"));

/** The register form: the spec has no password length rule on the client. */
export const registerFormSchema = z
  .object({
    name: chosenName("A name", VALIDATION.nameRequired)
      .trim()
      .min(1, VALIDATION.nameRequired)
      .max(100, "Name must be at most 100 characters."),
    email,
    password: passwordSchema,
    confirm_password: confirmPasswordSchema,
  })
  .refine((v) => v.password === v.confirm_password, {
    message: VALIDATION.passwordsMatch,
    path: ["confirm_password"],
  });
export type RegisterInput = z.infer<typeof registerFormSchema>;

/** The server adds its password policy on top of the form's rules. */
export const registerRequestSchema = registerFormSchema.refine((v) => v.password.length >= PASSWORD_MIN_LENGTH, {
  message: VALIDATION.passwordTooShort,
  path: ["password"],
});

export const MAX_MESSAGE_LENGTH = 20_000;

const storedDate = z
  .string({ error: "date is required." })
  .regex(STORED_DATE_PATTERN, "date must be M/d/yyyy.")
  .refine((d) => parseStoredDate(d) !== null, "date must be a real calendar date.");
const storedTime = z.string({ error: "time is required." }).regex(STORED_TIME_PATTERN, "time must be h:mm a.");

/** A message's text, as typed in the composer and as sent. */
const messageText = text("A message")
  .trim()
  .min(1, VALIDATION.message)
  .max(MAX_MESSAGE_LENGTH, `A message is at most ${MAX_MESSAGE_LENGTH} characters.`);

/** The composer's form. */
export const messageFormSchema = z.object({
  message: messageText,
});

/** What every send names besides its text: the client's id (so a retried send never duplicates) and the device's day and time. */
export const messageFields = {
  id: z.uuid("Message id must be a UUID."),
  date: storedDate,
  time: storedTime,
};

/** A text message as sent in clear. */
export const sendMessageSchema = z.object({ ...messageFields, content: messageText });
export type SendMessageInput = z.infer<typeof sendMessageSchema>;

/** The longest file name an upload may carry. */
export const MAX_FILENAME_LENGTH = 255;

/** What the app tells the server when it starts an upload (tus Upload-Metadata). */
export const uploadMetadataSchema = z.object({
  filename: chosenName("filename", "filename is required.")
    .trim()
    .min(1, "filename is required.")
    .max(MAX_FILENAME_LENGTH, `A file name is at most ${MAX_FILENAME_LENGTH} characters.`),
  /** tus sends an empty value as a key alone, read as null: a browser has no type for many files. */
  filetype: text("filetype")
    .max(255, "filetype is at most 255 characters.")
    .nullish()
    .transform((type) => type ?? ""),
  message_id: z.uuid("message_id must be a UUID."),
  /** The discussion the file is sent to; without it, the uploader's own days. */
  discussion_id: z.uuid("discussion_id must be a UUID.").optional(),
  date: storedDate,
  time: storedTime,
});
export type UploadMetadata = z.infer<typeof uploadMetadataSchema>;

export const retentionSchema = z.object({
  max_message_duration: z.union(
    PREMIUM_RETENTION_CHOICES.map((c) => (c === null ? z.null() : z.literal(c))),
    { error: "Retention must be 60, 1440 or null (unlimited)." },
  ),
});

export const searchQuerySchema = z.object({
  q: text("A search").trim().min(1, "Type something to search for.").max(200, "A search is at most 200 characters."),
});

export const dayIdParamsSchema = z.object({ id: z.uuid("Day id must be a UUID.") });

export const messageIdParamsSchema = z.object({ id: z.uuid("Message id must be a UUID.") });
