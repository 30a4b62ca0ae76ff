/** Setup file of the e2e project: a test fails when a page broke the server's policies while it ran. */
import { afterAll, afterEach, expect } from "vitest";
import { takePolicyViolations } from "./policy-violations.ts";

const expectNone = () => expect(takePolicyViolations(), "Content-Security-Policy or Permissions-Policy violations").toEqual([]);

afterEach(expectNone);
// What a file's own beforeAll or afterAll pages did.
afterAll(expectNone);
