import { TEST_KEY } from './start-test-gateway.js';

/** What the e2e tests read of a generation record. */
export interface RecordView {
  status: string;
  inputTokens: number;
  outputTokens: number;
  costNanoUsd: number;
  warnings: string[];
  errorCode: string | null;
  errorMessage: string | null;
  /** Every upstream attempt, in order. */
  attempts: { provider: string; outcome: string; status: number | null }[];
}

/** The record of `genId` from `GET /v1/generation/{id}`, once it is readable (within 5 s). */
export async function recordOf(baseURL: string, genId: string, key = TEST_KEY): Promise<RecordView> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const response = await fetch(`${baseURL}/generation/${genId}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    if (response.status === 200) return ((await response.json()) as { data: RecordView }).data;
    if (Date.now() > deadline) throw new Error(`no record for ${genId}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
