/**
 * The base class of the project's errors: the name is the subclass's, the cause is kept (ES2022 `cause`), and the
 * cause chain is walked by the one bounded, cycle-safe walk in workflow/util/cause.ts.
 */
import { causes, findCause } from "./cause.js";

export class CresolverError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }

  /** This error, then its causes, outermost first (bounded and cycle-safe). */
  causeChain(): unknown[] {
    return [...causes(this)];
  }

  /** The first of this error and its causes that matches `predicate`, or undefined. */
  findCause<T>(predicate: (value: unknown) => value is T): T | undefined {
    return findCause(this, predicate);
  }
}
