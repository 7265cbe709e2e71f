// Input of `generate.ts`: the Bot API as the grammY types (@grammyjs/types) describe it.
import type { ApiError, ApiMethods, Opts } from "@grammyjs/types";

type Methods = ApiMethods<string>;

/** The Bot API: per method its arguments (`params`) and what `ok: true` carries (`result`). */
export type TelegramBotApi = {
  methods: {
    [M in keyof Methods]: { params: Opts<string>[M]; result: ReturnType<Methods[M]> };
  };
  /** The body of every `ok: false` answer. */
  error: ApiError;
};
