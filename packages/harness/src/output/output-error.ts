/** An output path kcsim cannot write to (a file where a directory should be, no permission, /proc): bad input, one line. */
export class OutputError extends Error {
  override readonly name = "OutputError";
}
