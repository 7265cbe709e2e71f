/**
 * `herald doctor`: checks the config, the store and every channel's credentials, and ends with
 * one clear verdict. Each problem names where it is and the fix.
 *
 * @module
 */
import { SQLITE_SCHEMA_VERSION } from "@herald/core";
import { ConfigError } from "../../config/errors.ts";
import { loadConfig } from "../../config/load.ts";
import { docsLink } from "../../docsLinks.ts";
import { createLogger } from "../../logger.ts";
import { loadPlugins } from "../../plugins/loadPlugins.ts";
import { SecretReader } from "../../plugins/secrets.ts";
import { openStore } from "../../store/openStore.ts";
import { MemoryStoreNotInspectableError, NoStoreError } from "../../store/readerErrors.ts";
import type { Out } from "../output.ts";

type Line = { ok: boolean; what: string; detail: string };

/**
 * The mark of a line: ✗ a problem; ! not a problem but something to do (its detail carries a
 * fix, e.g. "no store yet"); ✓ only for a line that asks nothing of the operator — a ✓ beside
 * a "fix:" read as a contradiction ([H28] C51).
 */
export function doctorMark(line: Line): "✓" | "!" | "✗" {
  if (!line.ok) return "✗";
  return /(^|[\s;(→])fix:/.test(line.detail) ? "!" : "✓";
}

/** Runs every check; returns the number of problems (the exit code is 1 when > 0). */
export async function doctor(
  configPath: string | undefined,
  out: Out = process.stdout,
): Promise<number> {
  const lines: Line[] = [];
  const report = () => {
    for (const l of lines) out.write(`${doctorMark(l)} ${l.what}: ${l.detail}\n`);
    const problems = lines.filter((l) => !l.ok).length;
    const notes = lines.filter((l) => doctorMark(l) === "!").length;
    const read = notes > 0 ? `; read the ${notes} line(s) marked !` : "";
    out.write(
      problems === 0
        ? `\nherald doctor: ${notes > 0 ? `no problems${read}` : "all checks passed"}\n`
        : `\nherald doctor: ${problems} problem(s) — fix the ✗ lines above${read}\n`,
    );
    return problems;
  };
  let loaded: Awaited<ReturnType<typeof loadConfig>>;
  try {
    loaded = await loadConfig(configPath);
    lines.push({ ok: true, what: "config", detail: loaded.file });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    for (const i of error.issues) {
      lines.push({
        ok: false,
        what: `config ${i.path || error.file}`,
        detail: `${i.message}${i.fix ? ` → fix: ${i.fix}` : ""}`,
      });
    }
    return report();
  }
  const secrets = new SecretReader();
  try {
    const store = await openStore(loaded.config, loaded.dir, process.env, { reader: true });
    const version = await store.schemaVersion();
    const counts = await store.countIntents();
    lines.push({
      ok: true,
      what: "store",
      detail: `${"sqlite" in loaded.config.store ? `SQLite (schema v${version}/${SQLITE_SCHEMA_VERSION})` : `PostgreSQL (schema v${version})`}; ${counts.pending} pending, ${counts.unknown_after_send} unknown_after_send, ${counts.failed} failed`,
    });
    await store.close();
  } catch (error) {
    if (error instanceof MemoryStoreNotInspectableError || error instanceof NoStoreError) {
      // Not broken: nothing to inspect from here (memory), or no gateway has run yet.
      lines.push({ ok: true, what: "store", detail: error.message });
    } else {
      const fix =
        error instanceof ConfigError
          ? error.issues.map((i) => `${i.path}: ${i.message} → ${i.fix ?? ""}`).join("; ")
          : (error as Error).message;
      lines.push({ ok: false, what: "store", detail: fix });
    }
  }
  if (loaded.config.channels.length === 0) {
    lines.push({
      ok: false,
      what: "channels",
      detail: `none configured → add one to "channels" (see ${docsLink("configure")})`,
    });
  }
  const logger = createLogger({ level: "silent", secrets });
  for (const [index, channel] of loaded.config.channels.entries()) {
    const what = `channel ${channel.plugin} (${channel.account})`;
    try {
      const [c] = await loadPlugins(loaded.config, {
        logger,
        secrets,
        file: loaded.file,
        dir: loaded.dir,
        only: index,
      });
      if (!c) continue;
      if (!c.plugin.checkCredentials) {
        lines.push({
          ok: true,
          what,
          detail: "config valid (this plugin has no credentials check)",
        });
        continue;
      }
      const check = await c.plugin.checkCredentials(c.config, c.deps);
      lines.push({ ok: check.ok, what, detail: secrets.redact(check.detail) });
    } catch (error) {
      if (error instanceof ConfigError) {
        for (const i of error.issues) {
          lines.push({
            ok: false,
            what,
            detail: `${i.path}: ${i.message}${i.fix ? ` → fix: ${i.fix}` : ""}`,
          });
        }
      } else {
        lines.push({ ok: false, what, detail: secrets.redact((error as Error).message) });
      }
    }
  }
  return report();
}
