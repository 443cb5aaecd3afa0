// Entry point of `npm start` (`node dist/main.js`). Before the gateway's modules are even parsed, V8's young
// generation is held at its initial size (see app/young-generation.ts); then the gateway process is loaded.
import { holdYoungGeneration } from './app/young-generation.js';

holdYoungGeneration();
await import('./gateway-main.js');
