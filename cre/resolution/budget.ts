/**
 * A per-execution call budget (HTTP calls, chain reads). The workflow plans within the DON quotas before it starts
 * (a panel too large is refused up front); this is the backstop that makes an unplanned extra call fail loudly in
 * our own words instead of as a quota error from the DON.
 */
import { CresolverError } from "../../workflow/util/errors.js";

export interface Budget {
  readonly used: number;
  readonly limit: number;
  /** Counts one call; throws BudgetExhaustedError when the limit is already reached. */
  take(what: string): void;
}

export class BudgetExhaustedError extends CresolverError {
  constructor(what: string, limit: number) {
    super(`${what}: the budget of ${limit} per DON execution is used up`);
  }
}

export function createBudget(limit: number): Budget {
  let used = 0;
  return {
    get used() {
      return used;
    },
    limit,
    take(what) {
      if (used >= limit) throw new BudgetExhaustedError(what, limit);
      used++;
    },
  };
}
