/**
 * The answers the sign-in pages read (the account, the session, the sign-in providers and an error's body), apart
 * from `responses.ts`: a module's schemas are all made when it loads, and the prerendered /login and /register start
 * with these alone instead of every answer's (keys, pairing, discussions). `responseSchemas` holds the same objects.
 */
import { z } from "zod";
import { providerListItemSchema } from "./identities.ts";

export const userSchema = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  actual_subscription_id: z.string(),
  title_subscription: z.string(),
  subscription_type_id: z.number(),
  /** Minutes a message lives; null means unlimited. */
  max_message_duration: z.number().nullable(),
  price_per_month: z.number(),
  subscription_duration: z.number(),
  date_subscription: z.string(),
  description_subscription: z.string(),
  date_expiration_subscription: z.string(),
  /** How the current plan is paid: "stripe" for Premium bought through Stripe; "" when granted. */
  payment_mode: z.string(),
  /** Creation time, ms since the epoch. */
  timestamps: z.number(),
  /** "admin" may open /admin; absent from servers older than the admin page. */
  role: z.enum(["admin", "user"]).optional(),
  /** Whether the person opened a verification link sent to `email`; absent from servers older than email (issue 26). */
  email_verified: z.boolean().optional(),
});

/** login, register, me, retention, pairing exchange */
export const userResponseSchema = z.object({ user: userSchema });

/** GET /api/session: null for a visitor */
export const sessionResponseSchema = z.object({ user: userSchema.nullable() });

/** GET /api/auth/providers */
export const providersResponseSchema = z.object({ providers: z.array(providerListItemSchema) });

/** Every error the API returns has this body. */
export const apiErrorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), field: z.string().optional() }),
});
