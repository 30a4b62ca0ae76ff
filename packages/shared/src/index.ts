export * from "./api.ts";
export * from "./entities.ts";
export * from "./formats.ts";
export * from "./live.ts";
export * from "./plans.ts";
export * from "./schemas.ts";
export * from "./ui-text.ts";
