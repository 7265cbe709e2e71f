/**
 * `pnpm bench`: runs every benchmark in one process run, one after another, so the figures are
 * measured side by side on the same machine state.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const benches = ["store.ts", "send.ts", "scale.ts", "render.ts"];
for (const bench of benches) {
  const r = spawnSync(
    process.execPath,
    ["--conditions=herald-source", join(here, bench), ...process.argv.slice(2)],
    {
      stdio: "inherit",
    },
  );
  if (r.status !== 0) process.exit(r.status ?? 1);
}
