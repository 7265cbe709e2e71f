/**
 * `pnpm bench`: runs every benchmark in one process run, one after another, so the figures are
 * measured side by side on the same machine state — last herald next to its peers (the private
 * `bench/` workspace package, whose devDependencies are the peers; docs/concepts/performance.md).
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const benches = [
  "store.ts",
  "throughput.ts",
  "send.ts",
  "drain.ts",
  "drainModel.ts",
  "scale.ts",
  "render.ts",
].map((b) => join(here, b));
benches.push(join(here, "../../bench/src/peers.ts"));
/** The machine's load beside the figures: the host may be shared ([H26]). */
const uptime = (when: string) => {
  const r = spawnSync("uptime", { encoding: "utf8" });
  console.log(`bench ${when}: ${(r.stdout ?? "").trim() || "(uptime unavailable)"}`);
};
uptime("start");
process.on("exit", () => uptime("end"));
for (const bench of benches) {
  const r = spawnSync(
    process.execPath,
    ["--conditions=herald-source", bench, ...process.argv.slice(2)],
    {
      stdio: "inherit",
    },
  );
  if (r.status !== 0) process.exit(r.status ?? 1);
}
