/**
 * The shared schemas the app starts with: making them is the largest piece of start-up work (see main.tsx). The
 * sign-in pages read the answers of `account-responses.ts` only, so every other answer's schema (keys, pairing,
 * discussions) is made when a page that reads it loads.
 */
export { loginSchema, registerFormSchema, sessionResponseSchema, userResponseSchema } from "@daysync/shared";
