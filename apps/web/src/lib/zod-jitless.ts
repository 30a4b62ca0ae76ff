/**
 * zod compiles object parsers with `new Function` unless told not to, and probes for it as soon as a schema
 * is made: under the page's Content-Security-Policy (no 'unsafe-eval') that probe is reported as a violation.
 * The entry imports this before any chunk that makes a schema loads; `zod/v4/core` keeps it to the config.
 */
import { config } from "zod/v4/core";

config({ jitless: true });
