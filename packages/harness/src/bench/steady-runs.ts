/**
 * How many runs of the same seed a process makes before the one that the
 * compression suite's steady rows measure (`scenario-cpu --steady`): by
 * then V8 has compiled what the scenario runs and compiles little more, as
 * in a hunt worker after its first seeds (a second run still compiles code
 * that the first made hot only late).
 */
export const STEADY_EARLIER_RUNS = 4;
