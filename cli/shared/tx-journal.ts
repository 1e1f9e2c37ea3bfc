/**
 * What a command sent, for Ctrl-C: every transaction of the send path (workflow/chain/send.ts, through the chain
 * context's `onTx`) with its last known state, so an interrupted command can say, one line per transaction, what
 * was confirmed, what was sent and may still land, and what was not sent. The daemon, which stops gracefully
 * instead, prints the same lines after its stop, with the work its store still holds (`stopReport`).
 */
import type { TxEvent } from "../../workflow/chain/clients.js";

/** One transaction and its last known state. */
export interface TxEntry {
  label: string;
  stage: TxEvent["stage"];
  hash?: string;
  block?: bigint;
}

/** Entries a journal keeps by default: a daemon runs for weeks, so the oldest finished ones are dropped beyond it. */
export const JOURNAL_LIMIT = 200;

/** One transaction as a report line. */
export function txLine(e: TxEntry): string {
  switch (e.stage) {
    case "sending":
      return `  not sent   ${e.label}`;
    case "broadcasting":
      return `  unknown    ${e.label} (stopped while it was signed and broadcast: the node may have it; check the account's transactions before sending again)`;
    case "sent":
      return `  sent       ${e.label}: ${e.hash} (not confirmed yet: it may still be mined; check it before sending again)`;
    case "confirmed":
      return `  confirmed  ${e.label}: ${e.hash} in block ${e.block}`;
    case "failed":
      return e.hash === undefined ? `  not sent   ${e.label} (refused)` : `  reverted   ${e.label}: ${e.hash}`;
  }
  return "";
}

const finished = (e: TxEntry): boolean => e.stage === "confirmed" || e.stage === "failed";

export class TxJournal {
  private readonly entries: TxEntry[] = [];
  /** Finished entries dropped to stay within the limit. */
  private dropped = 0;

  constructor(private readonly limit = JOURNAL_LIMIT) {}

  /** Records one step (the chain context's `onTx`). Concurrent sends of one label are told apart by their hash. */
  readonly record = (event: TxEvent): void => {
    const hash = "hash" in event ? event.hash : undefined;
    const open =
      event.stage === "sending"
        ? undefined
        : event.stage === "sent" || hash === undefined
          ? this.entries.findLast(
              (e) => e.label === event.label && (e.stage === "sending" || e.stage === "broadcasting"),
            )
          : this.entries.findLast((e) => e.hash === hash && !finished(e));
    const entry: TxEntry = {
      label: event.label,
      stage: event.stage,
      ...(hash !== undefined ? { hash } : {}),
      ...(event.stage === "confirmed" ? { block: event.block } : {}),
    };
    if (open !== undefined) Object.assign(open, entry);
    else this.push(entry);
  };

  private push(entry: TxEntry): void {
    this.entries.push(entry);
    if (this.entries.length <= this.limit) return;
    const oldest = this.entries.findIndex(finished);
    if (oldest === -1) return;
    this.entries.splice(oldest, 1);
    this.dropped++;
  }

  /** The transactions in the order they were started (the oldest finished ones beyond the limit left out). */
  list(): readonly TxEntry[] {
    return this.entries;
  }

  /** One line per transaction, in the order they were started. */
  lines(): string[] {
    const lines = this.entries.map(txLine);
    return this.dropped > 0
      ? [`  (${this.dropped} earlier confirmed or failed transaction(s) not listed)`, ...lines]
      : lines;
  }

  /** The report printed on Ctrl-C (stderr). */
  interruptReport(): string {
    const lines = this.lines();
    return lines.length === 0
      ? "interrupted: no transaction was sent\n"
      : `interrupted: ${this.entries.length + this.dropped} transaction(s) started\n${lines.join("\n")}\n`;
  }

  /**
   * This journal's transactions followed by `pending`, the work someone else still holds (the daemon store's
   * unfinished jobs): a pending entry with a hash the journal knows replaces the journal's entry (its label is
   * more precise; the journal's stage is the fresher), one without a hash replaces an unsent journal entry of its
   * transaction (same label before the pending label's " (…)").
   */
  merged(pending: readonly TxEntry[]): TxEntry[] {
    const merged: TxEntry[] = this.entries.map((e) => ({ ...e }));
    const extra: TxEntry[] = [];
    for (const p of pending) {
      const same =
        p.hash !== undefined
          ? merged.find((e) => e.hash !== undefined && e.hash.toLowerCase() === p.hash?.toLowerCase())
          : merged.find((e) => e.stage === "sending" && p.label.startsWith(`${e.label} (`));
      if (same === undefined) extra.push(p);
      else if (p.hash !== undefined) same.label = p.label;
      else Object.assign(same, p);
    }
    return [...merged, ...extra];
  }

  /**
   * The report of a command that stops gracefully (the daemon), after its stop: what this run sent, then the
   * transactions still to send (see `merged`), one line each, and `hint` when anything is left.
   */
  stopReport(heading: string, pending: readonly TxEntry[], hint: string): string {
    const all = this.merged(pending);
    const lines = this.lines()
      .slice(0, this.dropped > 0 ? 1 : 0)
      .concat(all.map(txLine));
    const sent = this.entries.filter((e) => e.hash !== undefined).length + this.dropped;
    const left = all.filter((e) => !finished(e)).length;
    const counts = `${sent === 0 ? "no transaction sent" : `${sent} transaction(s) sent`} by this run, ${left === 0 ? "nothing pending" : `${left} pending or not sent`}`;
    return `${heading}: ${counts}\n${lines.map((l) => `${l}\n`).join("")}${left > 0 ? `${hint}\n` : ""}`;
  }
}
