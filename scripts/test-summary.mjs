// Prints the closing line CI reads ("N passed, N failed") from vitest's JSON report.
import { existsSync, readFileSync } from "node:fs";

const file = process.argv[2] ?? "test-results.json";
if (!existsSync(file)) {
  console.log("Tests: 0 passed, 1 failed (no test report: the run stopped before the tests)");
  process.exit(0);
}
const report = JSON.parse(readFileSync(file, "utf8"));
const skipped = report.numPendingTests + report.numTodoTests;
// A test file that fails outside its tests (a set-up or tear-down hook) fails the run without a failed test: count it.
const filesFailedOutsideTests = report.testResults.filter(
  (f) => f.status === "failed" && !f.assertionResults.some((a) => a.status === "failed"),
);
const failed = report.numFailedTests + filesFailedOutsideTests.length;
const outside = filesFailedOutsideTests.length
  ? ` (${filesFailedOutsideTests.length} outside a test, in a file's set-up or tear-down)`
  : "";
// A test that passed on its second try (vitest's `retry`, on CI for the browser tests) keeps the first try's error.
const secondTry = report.testResults.flatMap((f) =>
  f.assertionResults.filter((a) => a.status === "passed" && a.failureMessages.length > 0).map((a) => `${f.name}: ${a.fullName}`),
);
if (secondTry.length) {
  console.log(`Passed only on a second try (${secondTry.length}), worth a look:`);
  for (const name of secondTry) console.log(`  ${name}`);
}
console.log(`Tests: ${report.numPassedTests} passed, ${failed} failed${outside}${skipped ? `, ${skipped} skipped` : ""}`);
