/**
 * Nonces for concurrent writes from one key, without viem's nonce manager: sends from one account
 * are serialised (signing and submission only; waiting for receipts stays concurrent), and each
 * send uses max(next local nonce, the node's pending count). A send that fails does not consume
 * its nonce, so the next one reuses it instead of leaving a gap.
 */
import type { Address } from "viem";

export type PendingCount = (address: Address) => Promise<number>;

export class NonceQueue {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly next = new Map<string, number>();

  /** Runs `send(nonce)` once every earlier send from `address` has finished. */
  async run<T>(address: Address, pending: PendingCount, send: (nonce: number) => Promise<T>): Promise<T> {
    const key = address.toLowerCase();
    const previous = this.tails.get(key) ?? Promise.resolve();
    const turn = previous.then(async () => {
      const onChain = await pending(address);
      const nonce = Math.max(onChain, this.next.get(key) ?? 0);
      const result = await send(nonce);
      this.next.set(key, nonce + 1);
      return result;
    });
    const settled = turn.catch(() => undefined);
    this.tails.set(key, settled);
    void settled.then(() => {
      if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return turn;
  }

  /** Forget local state (e.g. after transactions were replaced or dropped outside this process). */
  reset(address?: Address): void {
    if (address === undefined) this.next.clear();
    else this.next.delete(address.toLowerCase());
  }
}
