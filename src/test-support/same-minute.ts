const MINUTE = 60_000;

/**
 * Waits, when needed, until the current minute (UTC, the rate limiter's window) has at least `marginMs` left,
 * so that a test's burst of requests falls in one window: a burst that straddles a minute's end is counted in
 * two windows and is not limited as the test expects. Returns at once on most calls.
 */
export async function awayFromMinuteEnd(marginMs = 5_000): Promise<void> {
  const left = MINUTE - (Date.now() % MINUTE);
  if (left >= marginMs) return;
  await new Promise((resolve) => setTimeout(resolve, left + 50));
}
