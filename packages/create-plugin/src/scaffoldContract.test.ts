// A plugin created by the scaffold, inside the workspace (the published path — npm / pnpm
// create from packed tarballs, then its own `test` — is scripts/check-packaging.ts): its files
// type-check, and a cross-section of the contract suite passes against its own fake. The whole
// suite and the mutant catalog are the example plugin's tests, which are the same files.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describeChannelContract } from "@herald/plugin-qa-channel/contract";
import type { ContractHarness } from "@herald/plugin-sdk/testing";
import { afterAll, expect, it } from "vitest";
import { scaffold } from "./scaffold.ts";
import { loadTemplate } from "./template.ts";

const pkg = join(import.meta.dirname, "..");
const work = mkdtempSync(join(pkg, ".scaffold-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const { dir } = scaffold({
  name: "@me/herald-plugin-acme-chat",
  dir: join(work, "acme"),
  template: loadTemplate(),
});
const { contractHarness } = (await import(
  pathToFileURL(join(dir, "src/testing/index.ts")).href
)) as {
  contractHarness: ContractHarness;
};

it("type-checks as created (its own tsconfig, herald's sources for the herald packages)", async () => {
  const tsc = join(pkg, "../../node_modules/.bin/tsc");
  const result = await promisify(execFile)(
    tsc,
    ["-p", join(dir, "tsconfig.json"), "--customConditions", "herald-source"],
    { cwd: dir },
  ).catch((e: { stdout: string; code: number }) => e);
  expect(result.stdout).toBe("");
});

it("names its harness after the new plugin", () => {
  expect(contractHarness.name).toBe("acme-chat");
});

describeChannelContract(contractHarness, {
  only: [
    "send.receipt",
    "batch.receipts",
    "reply.quote-multi-part",
    "edit.twice-from-receipt",
    "classify.status-5xx",
    "origin.tagged-echo",
    "receive.normalize",
    "accounts.plugin-load",
  ],
});
