import { describe, expect, it } from "vitest";
import {
  loginSchema,
  messageFormSchema,
  registerFormSchema,
  registerRequestSchema,
  retentionSchema,
  sendMessageSchema,
} from "./schemas.ts";
import { VALIDATION } from "./ui-text.ts";

const firstMessage = (result: { success: boolean; error?: { issues: { message: string }[] } }) => result.error?.issues[0]?.message;

describe("login form", () => {
  it("asks for an email and a password with the spec's messages", () => {
    expect(firstMessage(loginSchema.safeParse({ email: "", password: "x" }))).toBe(VALIDATION.emailRequired);
    expect(firstMessage(loginSchema.safeParse({ email: "nope", password: "x" }))).toBe(VALIDATION.emailInvalid);
    expect(firstMessage(loginSchema.safeParse({ email: "a@b.co", password: "" }))).toBe(VALIDATION.passwordRequired);
    expect(loginSchema.safeParse({ email: " a@b.co ", password: "x" }).data?.email).toBe("a@b.co");
  });
});

describe("register form", () => {
  const ok = { name: "Ann", email: "ann@example.com", password: "p", confirm_password: "p" };
  it("has no password length rule on the client", () => {
    expect(registerFormSchema.safeParse(ok).success).toBe(true);
  });
  it("requires each field and matching passwords", () => {
    expect(firstMessage(registerFormSchema.safeParse({ ...ok, name: " " }))).toBe(VALIDATION.nameRequired);
    expect(firstMessage(registerFormSchema.safeParse({ ...ok, confirm_password: "" }))).toBe(VALIDATION.confirmRequired);
    expect(firstMessage(registerFormSchema.safeParse({ ...ok, confirm_password: "q" }))).toBe(VALIDATION.passwordsMatch);
  });
  it("needs 8 characters on the server", () => {
    expect(firstMessage(registerRequestSchema.safeParse(ok))).toBe(VALIDATION.passwordTooShort);
    expect(registerRequestSchema.safeParse({ ...ok, password: "12345678", confirm_password: "12345678" }).success).toBe(true);
  });
});

describe("messages", () => {
  it("says 'Enter a message' when the composer is empty", () => {
    expect(firstMessage(messageFormSchema.safeParse({ message: "  " }))).toBe(VALIDATION.message);
  });
  it("accepts a message as a device sends it", () => {
    const input = { id: crypto.randomUUID(), content: "hi", date: "11/22/2026", time: "9:05 PM" };
    expect(sendMessageSchema.parse(input)).toEqual(input);
  });
  it("accepts only the Premium retention choices", () => {
    for (const v of [60, 1440, null]) expect(retentionSchema.safeParse({ max_message_duration: v }).success).toBe(true);
    expect(retentionSchema.safeParse({ max_message_duration: 15 }).success).toBe(false);
  });
});
