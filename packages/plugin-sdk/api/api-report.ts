/**
 * API report of `@herald/plugin-sdk`: API Extractor reads the built declarations of each
 * subpath (`dist/<entry>/index.d.mts`, so run `build` first) and writes
 * `api/<entry>.api.md`. `@herald/core` is bundled into the report, so a change to a core type
 * that this package re-exports shows up here too.
 *
 *   node api/api-report.ts check    fails when a report differs from the committed one
 *   node api/api-report.ts update   rewrites the committed reports (review the diff)
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
  ExtractorMessageCategory,
} from "@microsoft/api-extractor";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const entries = ["channel-message", "testing", "contract"] as const;
const updateCommand = "pnpm --filter @herald/plugin-sdk api:update";

const mode = process.argv[2];
if (mode !== "check" && mode !== "update") {
  console.error("usage: node api/api-report.ts check|update");
  process.exit(2);
}

let failed = false;
for (const entry of entries) {
  const dts = join(packageDir, "dist", entry, "index.d.mts");
  if (!existsSync(dts)) {
    console.error(`✗ ${dts} is missing: run \`pnpm --filter @herald/plugin-sdk build\` first`);
    process.exit(1);
  }
  const config = ExtractorConfig.prepare({
    configObjectFullPath: join(packageDir, "api", "api-extractor.json"),
    packageJsonFullPath: join(packageDir, "package.json"),
    configObject: {
      projectFolder: packageDir,
      mainEntryPointFilePath: dts,
      bundledPackages: ["@herald/core"],
      newlineKind: "lf",
      compiler: {
        // The built declarations, resolved like a consumer would (no `herald-source` condition).
        overrideTsconfig: {
          compilerOptions: {
            target: "es2024",
            lib: ["es2024", "esnext.disposable"],
            module: "nodenext",
            moduleResolution: "nodenext",
            types: ["node"],
            strict: true,
            skipLibCheck: true,
          },
          files: [dts],
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: entry,
        reportFolder: join(packageDir, "api"),
        reportTempFolder: join(packageDir, ".cache", "api-report"),
        includeForgottenExports: true,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
        // Messages are printed (and fail the run), never written into the report: they carry
        // absolute paths and hashed chunk names that would make the report machine-dependent.
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning, addToApiReportFile: false },
          // No release tags (@public/@beta) in herald: every export of a subpath is public.
          "ae-missing-release-tag": { logLevel: ExtractorLogLevel.None },
          // Included in the report (includeForgottenExports), so a change to them is visible.
          "ae-forgotten-export": { logLevel: ExtractorLogLevel.None },
          // Doc completeness and {@link} targets inside bundled core types are not API shape.
          "ae-undocumented": { logLevel: ExtractorLogLevel.None },
          "ae-unresolved-link": { logLevel: ExtractorLogLevel.None },
        },
        // TSDoc style is not what this report guards (herald uses @module, @defaultValue on types).
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
  });
  const problems: string[] = [];
  const result = Extractor.invoke(config, {
    localBuild: mode === "update",
    messageCallback(message: ExtractorMessage) {
      message.handled = true;
      if (
        message.category !== ExtractorMessageCategory.Console &&
        (message.logLevel === ExtractorLogLevel.Error ||
          message.logLevel === ExtractorLogLevel.Warning)
      ) {
        problems.push(message.formatMessageWithLocation(packageDir));
      }
    },
  });
  const report = join("api", `${entry}.api.md`);
  if (result.apiReportChanged && mode === "check") {
    failed = true;
    console.error(
      `✗ the public API of @herald/plugin-sdk/${entry} changed: ${report} differs from the build.\n` +
        `  Compare: diff -u packages/plugin-sdk/${report} packages/plugin-sdk/.cache/api-report/${entry}.api.md\n` +
        `  If the change is intended, run \`${updateCommand}\` and commit packages/plugin-sdk/${report} for review.`,
    );
  } else if (problems.length > 0 || !result.succeeded) {
    failed = true;
    console.error(`✗ API Extractor reported problems for ./${entry}:\n  ${problems.join("\n  ")}`);
  } else {
    console.log(`✓ ${report} ${mode === "update" ? "written" : "matches the build"}`);
  }
}
process.exit(failed ? 1 : 0);
