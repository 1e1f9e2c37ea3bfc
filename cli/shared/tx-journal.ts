/**
 * What a command sent, for Ctrl-C: every transaction of the send path (workflow/chain/send.ts, through the chain
 * context's `onTx`) with its last known state, so an interrupted command can say, one line per transaction, what
 * was confirmed, what was sent and may still land, and what was not sent.
 */
import type { TxEvent } from "../../workflow/chain/clients.js";

interface Entry {
  label: string;
  stage: TxEvent["stage"];
  hash?: string;
  block?: bigint;
}

export class TxJournal {
  private readonly entries: Entry[] = [];

  /** Records one step (the chain context's `onTx`). */
  readonly record = (event: TxEvent): void => {
    const open = this.entries.findLast(
      (e) => e.label === event.label && e.stage !== "confirmed" && e.stage !== "failed",
    );
    const entry: Entry = {
      label: event.label,
      stage: event.stage,
      ...("hash" in event && event.hash !== undefined ? { hash: event.hash } : {}),
      ...(event.stage === "confirmed" ? { block: event.block } : {}),
    };
    if (open !== undefined && event.stage !== "sending") Object.assign(open, entry);
    else this.entries.push(entry);
  };

  /** One line per transaction, in the order they were started. */
  lines(): string[] {
    return this.entries.map((e) => {
      switch (e.stage) {
        case "sending":
          return `  not sent   ${e.label}`;
        case "sent":
          return `  sent       ${e.label}: ${e.hash} (not confirmed yet: it may still be mined; check it before sending again)`;
        case "confirmed":
          return `  confirmed  ${e.label}: ${e.hash} in block ${e.block}`;
        case "failed":
          return e.hash === undefined ? `  not sent   ${e.label} (refused)` : `  reverted   ${e.label}: ${e.hash}`;
      }
      return "";
    });
  }

  /** The report printed on Ctrl-C (stderr). */
  interruptReport(): string {
    const lines = this.lines();
    return lines.length === 0
      ? "interrupted: no transaction was sent\n"
      : `interrupted: ${lines.length} transaction(s) started\n${lines.join("\n")}\n`;
  }
}
