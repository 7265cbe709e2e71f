/**
 * The `herald` CLI (commander): `demo`, `start`, `queue ls|show|retry|cancel`,
 * `deadletters ls|show`, `recover`,
 * `send`, `doctor`. Errors name the fix and print without a stack (`--verbose` adds it); exit
 * code 1 on failure. Output piped into `head` & co. ends quietly (EPIPE). Loaded by `main.ts`
 * once the Node version is known to be enough.
 *
 * @module
 */
import { Command, Option } from "commander";
import { CliUsageError, installCliErrorHandling, reportCliError } from "./cliErrors.ts";
import type { CliContext } from "./context.ts";

// Each command's module is imported when that command runs: `herald start` binds its HTTP
// socket before the gateway, store and plugins load (see commands/start.ts), and `--help` loads
// none of them.
const commands = {
  deadletters: () => import("./commands/deadletters.ts"),
  demo: () => import("./commands/demo.ts"),
  doctor: () => import("./commands/doctor.ts"),
  queue: () => import("./commands/queue.ts"),
  runtimeOps: () => import("./commands/runtimeOps.ts"),
  start: () => import("./commands/start.ts"),
};

const verbose = process.argv.includes("--verbose");

const program = new Command("herald")
  .description("durable message lifecycle for chat bots: receive, send, live, state")
  .option("--verbose", "print stack traces with errors")
  .showHelpAfterError();
const configOption = () =>
  new Option("-c, --config <file>", "config file (default: herald.config.{ts,mjs,json} here)");

async function withContext(
  configPath: string | undefined,
  fn: (ctx: CliContext) => Promise<void>,
  quiet = true,
  reader = true,
) {
  const { cliContext } = await import("./context.ts");
  const ctx = await cliContext(configPath, quiet, false, reader);
  try {
    await fn(ctx);
  } finally {
    await ctx.store.close();
  }
}

program
  .command("demo")
  .description(
    "start the QA web chat on 127.0.0.1 with a demo bot (needs @herald/plugin-qa-channel; state in .herald/demo/)",
  )
  .option("-p, --port <port>", "port of the web chat on 127.0.0.1 (0 = any free port)", "4610")
  .option(
    "--dir <dir>",
    "the demo's own state folder, never another bot's store (default: .herald/demo)",
  )
  .action(async (o: { port: string; dir?: string }) => {
    const { DEMO_DIR, demoCommand } = await commands.demo();
    await demoCommand({ port: Number(o.port), dir: o.dir ?? DEMO_DIR });
  });

program
  .command("start")
  .description("start the gateway from a config (it needs a handler, or --echo)")
  .addOption(configOption())
  .option("--echo", "no handler: answer every message with its own text")
  .action(async (o: { config?: string; echo?: boolean }) => {
    const { startCommand } = await commands.start();
    await startCommand(o.config, o.echo ? { echo: true } : {});
  });

/** Where this config's gateway serves HTTP, as a local client reaches it. */
const gatewayUrlOf = (http: { host: string; port: number }) =>
  `http://${http.host === "0.0.0.0" || http.host === "::" ? "127.0.0.1" : http.host}:${http.port}`;

const queue = program.command("queue").description("inspect and act on the send queue");
queue
  .command("ls")
  .description("list intents (oldest first) with counts per status")
  .addOption(configOption())
  .option("-s, --status <status...>", "only these statuses")
  .option("--channel <channel>", "only this channel")
  .option("-n, --limit <n>", "at most n rows", "50")
  .action((o: { config?: string; status?: string[]; channel?: string; limit: string }) =>
    withContext(o.config, async (ctx) =>
      (await commands.queue()).queueList(ctx.store, {
        ...(o.status ? { status: o.status } : {}),
        ...(o.channel ? { channel: o.channel } : {}),
        limit: Number(o.limit),
        // Inbound waiting for a retry lives in the running gateway only (C50): ask it.
        gatewayUrl: gatewayUrlOf(ctx.loaded.config.http),
      }),
    ),
  );
queue
  .command("show <id>")
  .description("show one intent in full")
  .addOption(configOption())
  .action((id: string, o: { config?: string }) =>
    withContext(o.config, async (ctx) => {
      const { queueShow } = await commands.queue();
      if (!(await queueShow(ctx.store, id, (t) => ctx.secrets.redact(t))))
        throw new CliUsageError(`no intent ${id} (see herald queue ls)`);
    }),
  );
// What each action applies to is core's status machine (`allowedOperations`), checked once the
// queue module loads: no copied list of statuses here.
for (const [name, describe] of [
  ["retry", "put failed or held intents back to pending (due now)"],
  ["cancel", "close intents that are not sent, for good (pending, held or failed)"],
] as const) {
  queue
    .command(`${name} [ids...]`)
    .description(describe)
    .addOption(configOption())
    .option("--all <status>", `every intent in this status (one that ${name} applies to)`)
    .option("--channel <channel>", "with --all: only this channel")
    .action((ids: string[], o: { config?: string; all?: string; channel?: string }) =>
      withContext(o.config, async (ctx) => {
        const ops = await commands.queue();
        const all = o.all === undefined ? undefined : ops.allStatus(name, o.all);
        const selected = await ops.selectIds(
          ctx.store,
          ids,
          all ? { statuses: [all], ...(o.channel ? { channel: o.channel } : {}) } : undefined,
        );
        if (selected.length === 0) {
          if (!all)
            throw new CliUsageError(`nothing to ${name}: give intent ids or --all <status>`);
          // An empty --all selection is a state, not a mistake: say so and succeed.
          process.stdout.write(
            `${name}: no intent is ${all}${o.channel ? ` on channel ${o.channel}` : ""}; nothing to do\n`,
          );
          return;
        }
        const result = await ops.queueAct(ctx.store, name, selected);
        process.stdout.write(
          `${name}: ${result.changed.length} changed, ${result.skipped.length} skipped\n`,
        );
        for (const s of result.skipped) process.stdout.write(`  skipped ${s.id}: ${s.reason}\n`);
        if (result.changed.length === 0)
          throw new CliUsageError(
            `nothing changed: ${result.skipped.map((s) => `${s.id} ${s.reason}`).join("; ")}`,
          );
      }),
    );
}

const deadletters = program
  .command("deadletters")
  .description("inbound events herald could not read, kept instead of dropped");
deadletters
  .command("ls")
  .description("list dead letters with the error that made each one")
  .addOption(configOption())
  .option("-s, --status <status>", "new | replayed | discarded")
  .option("--channel <channel>", "only this channel")
  .option("-n, --limit <n>", "at most n rows", "50")
  .action((o: { config?: string; status?: string; channel?: string; limit: string }) =>
    withContext(o.config, async (ctx) =>
      (await commands.deadletters()).deadLettersList(
        ctx.store,
        {
          ...(o.status ? { status: o.status } : {}),
          ...(o.channel ? { channel: o.channel } : {}),
          limit: Number(o.limit),
        },
        (t) => ctx.secrets.redact(t),
      ),
    ),
  );
deadletters
  .command("show <id>")
  .description("show one dead letter in full: the raw event and the error")
  .addOption(configOption())
  .action((id: string, o: { config?: string }) =>
    withContext(o.config, async (ctx) => {
      const { deadLetterShow } = await commands.deadletters();
      if (!(await deadLetterShow(ctx.store, id, (t) => ctx.secrets.redact(t))))
        throw new CliUsageError(`no dead letter ${id} (see herald deadletters ls)`);
    }),
  );

program
  .command("recover")
  .description(
    "run recovery now: sends left by stopped workers, unfinished inbound messages, live sessions",
  )
  .addOption(configOption())
  .option("--json", "print the summary as one JSON object (for scripts)")
  .action((o: { config?: string; json?: boolean }) =>
    withContext(o.config, async (ctx) => {
      await (await commands.runtimeOps()).recover(ctx, process.stdout, { json: o.json === true });
    }),
  );

program
  .command("send <channel> <target> <text>")
  .description("send a message durably through a configured channel")
  .addOption(configOption())
  .option("--account <account>", "account id when the channel has several")
  .option("--thread <thread>", "thread / topic id")
  .action(
    (
      channel: string,
      target: string,
      text: string,
      o: { config?: string; account?: string; thread?: string },
    ) =>
      withContext(
        o.config,
        async (ctx) => {
          const { send } = await commands.runtimeOps();
          await send(ctx, {
            channel,
            target,
            text,
            ...(o.account ? { account: o.account } : {}),
            ...(o.thread ? { thread: o.thread } : {}),
          });
        },
        true,
        false,
      ),
  );

program
  .command("doctor")
  .description("check the config, the store and each channel's credentials")
  .addOption(configOption())
  .action(async (o: { config?: string }) => {
    const { doctor } = await commands.doctor();
    process.exitCode = (await doctor(o.config)) > 0 ? 1 : 0;
  });

/**
 * Runs the CLI on `process.argv`. Called by `main.ts` (an export, not a side effect of the
 * import: the package is `sideEffects: false`, so a bundler drops an import nobody uses).
 */
export async function runCli(): Promise<void> {
  installCliErrorHandling({ verbose });
  try {
    await program.parseAsync(process.argv);
  } catch (error) {
    reportCliError(error, { verbose });
    process.exitCode = 1;
  }
}
