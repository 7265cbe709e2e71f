/**
 * [H23] A handler module may export `onAction` / `onReaction` beside its message handler;
 * `herald start` registers them. One exported as something else is a config error naming it.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { importHandlerHooks } from "./commands/start.ts";

it("C-H23-hooks: picks up onAction and onReaction from the handler module, refuses a non-function", async () => {
  const dir = mkdtempSync(join(tmpdir(), "h23-hooks-"));
  writeFileSync(
    join(dir, "bot.mjs"),
    "export default async () => {};\nexport async function onAction() {}\nexport const onReaction = async () => {};\n",
  );
  const hooks = await importHandlerHooks(dir, "./bot.mjs");
  expect(typeof hooks.onAction).toBe("function");
  expect(typeof hooks.onReaction).toBe("function");
  writeFileSync(join(dir, "plain.mjs"), "export default async () => {};\n");
  expect(await importHandlerHooks(dir, "./plain.mjs")).toEqual({});
  writeFileSync(
    join(dir, "bad.mjs"),
    "export default async () => {};\nexport const onAction = 3;\n",
  );
  await expect(importHandlerHooks(dir, "./bad.mjs")).rejects.toThrow(
    "./bad.mjs exports onAction, but it is not a function",
  );
});
