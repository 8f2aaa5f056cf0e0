/** A bad command line: printed as one line, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}
