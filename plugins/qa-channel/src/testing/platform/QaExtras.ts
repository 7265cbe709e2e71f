/**
 * What the QA platform keeps beside the visible messages ([H23]): uploaded files, the files and
 * buttons of each message, reactions, and ephemeral messages (shown to one user only, never in
 * history or on the bot event stream).
 *
 * @module
 */
import type { QaWireButton, QaWireFile } from "../../wire.ts";

/** An uploaded file and its bytes. */
export type QaStoredFile = QaWireFile & { bytes: Uint8Array };

/** A message only `userId` sees. */
export type QaEphemeral = {
  id: string;
  chat: string;
  userId: string;
  authorId: string;
  text: string;
  buttons?: QaWireButton[];
  createdAt: number;
};

/** A change the web page shows that the visible state does not carry. */
export type QaExtrasChange =
  | { type: "reactions"; messageId: string; chat: string }
  | { type: "ephemeral"; ephemeral: QaEphemeral };

/** The QA platform's extras store. */
export class QaExtras {
  readonly #files = new Map<string, QaStoredFile>();
  readonly #messageFiles = new Map<string, string[]>();
  readonly #buttons = new Map<string, QaWireButton[]>();
  /** message id → emoji → user ids (insertion order). */
  readonly #reactions = new Map<string, Map<string, Set<string>>>();
  readonly #ephemerals: QaEphemeral[] = [];
  readonly #listeners = new Set<(change: QaExtrasChange) => void>();
  #nextFile = 1;
  #nextEphemeral = 1;
  #nextClick = 1;

  /** Stores an upload. */
  addFile(input: { name: string; mimeType: string; bytes: Uint8Array }): QaStoredFile {
    const file: QaStoredFile = {
      id: `F${this.#nextFile++}`,
      name: input.name,
      mime_type: input.mimeType,
      size: input.bytes.byteLength,
      bytes: input.bytes,
    };
    this.#files.set(file.id, file);
    return file;
  }

  file(id: string): QaStoredFile | undefined {
    return this.#files.get(id);
  }

  /** How many files were uploaded (orphans of a crashed post included). */
  get uploads(): number {
    return this.#files.size;
  }

  attach(messageId: string, extras: { fileIds?: string[]; buttons?: QaWireButton[] }): void {
    if (extras.fileIds?.length) this.#messageFiles.set(messageId, extras.fileIds);
    if (extras.buttons?.length) this.#buttons.set(messageId, extras.buttons);
  }

  filesOf(messageId: string): QaWireFile[] {
    return (this.#messageFiles.get(messageId) ?? []).flatMap((id) => {
      const f = this.#files.get(id);
      return f ? [{ id: f.id, name: f.name, mime_type: f.mime_type, size: f.size }] : [];
    });
  }

  buttonsOf(messageId: string): QaWireButton[] | undefined {
    return this.#buttons.get(messageId);
  }

  /** emoji → user ids, or undefined when the message has none. */
  reactionsOf(messageId: string): Record<string, string[]> | undefined {
    const byEmoji = this.#reactions.get(messageId);
    if (!byEmoji || byEmoji.size === 0) return undefined;
    return Object.fromEntries([...byEmoji].map(([emoji, users]) => [emoji, [...users]]));
  }

  /**
   * Adds or removes `userId`'s reaction. Idempotent: adding one already there (or removing one
   * that is not) changes nothing. @returns whether anything changed
   */
  react(messageId: string, chat: string, emoji: string, userId: string, remove: boolean): boolean {
    const byEmoji = this.#reactions.get(messageId) ?? new Map<string, Set<string>>();
    this.#reactions.set(messageId, byEmoji);
    const users = byEmoji.get(emoji) ?? new Set<string>();
    const had = users.has(userId);
    if (remove ? !had : had) return false;
    if (remove) users.delete(userId);
    else users.add(userId);
    if (users.size === 0) byEmoji.delete(emoji);
    else byEmoji.set(emoji, users);
    this.#emit({ type: "reactions", messageId, chat });
    return true;
  }

  addEphemeral(input: Omit<QaEphemeral, "id" | "createdAt">, now: number): QaEphemeral {
    const ephemeral: QaEphemeral = { ...input, id: `E${this.#nextEphemeral++}`, createdAt: now };
    this.#ephemerals.push(ephemeral);
    this.#emit({ type: "ephemeral", ephemeral });
    return ephemeral;
  }

  ephemerals(chat: string, userId?: string): QaEphemeral[] {
    return this.#ephemerals.filter(
      (e) => e.chat === chat && (userId === undefined || e.userId === userId),
    );
  }

  /** A fresh click id. */
  clickId(): string {
    return `click-${this.#nextClick++}`;
  }

  subscribe(listener: (change: QaExtrasChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(change: QaExtrasChange): void {
    for (const listener of this.#listeners) listener(change);
  }
}
