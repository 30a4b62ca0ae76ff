/**
 * PostgreSQL text cannot hold U+0000 and no person types it, so every text we store or look up refuses it
 * by name in its schema (`.refine(hasNoNul, nulMessage("A message"))`) instead of failing in the database.
 */
export const hasNoNul = (text: string) => !text.includes("\u0000");

export const nulMessage = (what: string) => `${what} must not contain the NUL character (U+0000).`;
