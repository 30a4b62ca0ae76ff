/**
 * Run before each CLI test file (setupFiles): after its tests, its scratch folders go, whether or not the file removes
 * them itself. Its afterAll, registered first, runs after the file's own.
 */
import { afterAll } from "vitest";
import { removeTempDirs } from "./cli-process.ts";

afterAll(removeTempDirs);
