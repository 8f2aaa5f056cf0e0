/**
 * What `argv` asks help for: null (nothing), "" (the whole help: `kcsim`, `kcsim --help`, `kcsim help`) or a
 * command's name (`kcsim help hunt`, `kcsim hunt --help`, `kcsim hunt -h`).
 */
export function helpAsked(argv: readonly string[]): string | null {
  const [first, second] = argv;
  if (first === undefined) return "";
  if (first === "help" || first === "--help" || first === "-h") return second === undefined || second === "help" ? "" : second;
  return argv.includes("--help") || argv.includes("-h") ? first : null;
}
