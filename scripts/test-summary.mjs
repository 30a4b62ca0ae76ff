// Prints the closing line CI reads ("N passed, N failed") from vitest's JSON report.
import { existsSync, readFileSync } from "node:fs";

const file = process.argv[2] ?? "test-results.json";
if (!existsSync(file)) {
  console.log("Tests: 0 passed, 1 failed (no test report: the run stopped before the tests)");
  process.exit(0);
}
const report = JSON.parse(readFileSync(file, "utf8"));
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`Tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ""}`);
