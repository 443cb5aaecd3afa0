/** Wall-clock and CPU time of a stretch of work, in microseconds. */
export interface Timing {
  wallMicros: number;
  /** CPU time of this process: unlike wall-clock time, not inflated by other processes on the machine. */
  cpuMicros: number;
}

/** Starts timing; the returned function reads the time elapsed since. */
export function startStopwatch(): () => Timing {
  const wallStart = performance.now();
  const cpuStart = process.cpuUsage();
  return () => {
    const cpu = process.cpuUsage(cpuStart);
    return { wallMicros: (performance.now() - wallStart) * 1000, cpuMicros: cpu.user + cpu.system };
  };
}
