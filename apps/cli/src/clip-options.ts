import { z } from "zod";
import { usageError } from "./errors.ts";
import { DEFAULT_HOTKEY, hotkeySchema } from "./hotkey-keys.ts";

/** The options as commander hands them over, before they are checked. */
export interface ClipFlags {
  receiveOnly?: boolean;
  sendOnly?: boolean;
  minLength?: string;
  ignore?: string[];
  images?: boolean;
  includeSecrets?: boolean;
  pause?: boolean;
  resume?: boolean;
  installService?: boolean;
  uninstallService?: boolean;
  /** `--hotkey` alone (true) or `--hotkey KEYS`. */
  hotkey?: string | true;
}

/** What --hotkey goes with: it sends once per press as `send --clipboard` does, so clip's other flags mean nothing to it. */
const WITH_HOTKEY = new Set<keyof ClipFlags>(["hotkey", "includeSecrets"]);

const regexSchema = z.string().transform((source, ctx) => {
  try {
    return { source, regex: new RegExp(source, "u") };
  } catch (error) {
    ctx.addIssue({ code: "custom", message: `--ignore "${source}" is not a valid regular expression (${(error as Error).message}).` });
    return z.NEVER;
  }
});

export const clipOptionsSchema = z
  .object({
    receiveOnly: z.boolean().default(false),
    sendOnly: z.boolean().default(false),
    minLength: z
      .string()
      .regex(/^\d{1,6}$/, "--min-length takes a whole number of characters, e.g. --min-length 3.")
      .transform(Number)
      .default(1),
    ignore: z.array(regexSchema).default([]),
    images: z.boolean().default(false),
    includeSecrets: z.boolean().default(false),
    pause: z.boolean().default(false),
    resume: z.boolean().default(false),
    installService: z.boolean().default(false),
    uninstallService: z.boolean().default(false),
    hotkey: z
      .union([z.literal(true).transform(() => DEFAULT_HOTKEY), z.string()])
      .pipe(hotkeySchema)
      .optional(),
  })
  .refine((o) => !(o.receiveOnly && o.sendOnly), "--receive-only and --send-only cannot be used together: without either, clip does both.")
  .refine(
    (o) => [o.pause, o.resume, o.installService, o.uninstallService].filter(Boolean).length <= 1,
    "Use one of --pause, --resume, --install-service and --uninstall-service at a time.",
  );
export type ClipOptions = z.infer<typeof clipOptionsSchema>;

export function parseClipOptions(flags: ClipFlags): ClipOptions {
  if (flags.hotkey !== undefined) {
    const others = (Object.keys(flags) as Array<keyof ClipFlags>).filter(
      (flag) =>
        !WITH_HOTKEY.has(flag) &&
        flags[flag] !== undefined &&
        flags[flag] !== false &&
        !(Array.isArray(flags[flag]) && flags[flag].length === 0),
    );
    if (others.length > 0) {
      const named = others.map((flag) => `--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(", ");
      throw usageError(
        `--hotkey sends the clipboard at each press, as daysync send --clipboard does: it takes only --include-secrets, not ${named}.`,
      );
    }
  }
  const parsed = clipOptionsSchema.safeParse(flags);
  if (!parsed.success) throw usageError(parsed.error.issues.map((i) => i.message).join(" "));
  return parsed.data;
}

/** The flags a service passes on to the clip it starts. */
export function serviceArgs(flags: ClipFlags): string[] {
  const args = ["clip"];
  if (flags.receiveOnly) args.push("--receive-only");
  if (flags.sendOnly) args.push("--send-only");
  if (flags.minLength !== undefined) args.push("--min-length", flags.minLength);
  for (const pattern of flags.ignore ?? []) args.push("--ignore", pattern);
  if (flags.images) args.push("--images");
  if (flags.includeSecrets) args.push("--include-secrets");
  return args;
}
