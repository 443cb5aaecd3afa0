import { runLimiterContract } from './limiter-contract.js';
import { MemoryLimiter } from './memory-limiter.js';

runLimiterContract('MemoryLimiter', async ({ spendSource, now }) => new MemoryLimiter(spendSource, now));
