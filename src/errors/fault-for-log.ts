import { GatewayError } from './gateway-error.js';

/** Stack frames kept in a fault's log line: enough to find the code that threw. */
const MAX_FRAMES = 8;
/** Longest frame kept (a frame is a function name and a file position). */
const MAX_FRAME_CHARS = 200;
/** A name or code that is an identifier (`TypeError`, `EEXIST`, `SQLITE_BUSY`); anything else is not shown. */
const IDENTIFIER = /^[A-Za-z_][\w.]{0,63}$/;

/** Longest message of the gateway's own error kept (the length the client is shown of upstream text). */
const MAX_OWN_MESSAGE_CHARS = 300;

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

/**
 * An internal error (one that became a 500) as log text that cannot carry request text: its name, its `code`,
 * and its stack's frames, without its message. The message is left out on purpose: an internal error's
 * message may quote what the request held (V8's regex SyntaxError quotes the whole pattern, so a too-large
 * `redact.custom` term went to the log whole; JSON and TypeError messages quote values and member names),
 * and logs never carry prompt text (CONTRACT §8). Scrubbing the message instead would have to know which of
 * its words came from the request; the frames, code positions only, locate the fault without that, and the
 * message can be had again by replaying the request where it is safe to. A `GatewayError`'s message is kept
 * (cut): the gateway wrote it for the client (`No adapter for provider x.`), never quoting prompt text.
 */
export function faultForLog(error: unknown): string {
  const text = describeOne(error);
  // the error a GatewayError wraps is the one that locates the fault: one level of cause is shown
  return error instanceof Error && error.cause instanceof Error
    ? `${text}; caused by ${describeOne(error.cause)}`
    : text;
}

function describeOne(error: unknown): string {
  if (!(error instanceof Error)) return `a thrown ${typeof error} (not an Error; its value is not logged)`;
  const name = IDENTIFIER.test(error.name) ? error.name : 'Error';
  const code =
    'code' in error && typeof error.code === 'string' && IDENTIFIER.test(error.code)
      ? ` (${error.code})`
      : '';
  const frames = stackFrames(error);
  const message =
    error instanceof GatewayError ? `: ${cut(error.message, MAX_OWN_MESSAGE_CHARS)}` : ', message withheld';
  return [`${name}${code}${message}`, ...(frames.length > 0 ? frames : ['no stack'])].join('; ');
}

/**
 * The `at …` lines of the stack after its header. V8 writes `${name}: ${message}` first, the message possibly
 * over many lines that may themselves look like frames, so the header is cut by its known text (V8 formats
 * the stack when it is first read, with the name and message of then); a stack that does not start with it
 * (read before a change of either) gives no frames rather than guesses.
 */
function stackFrames(error: Error): string[] {
  const stack = typeof error.stack === 'string' ? error.stack : '';
  const header = error.message === '' ? error.name : `${error.name}: ${error.message}`;
  if (!stack.startsWith(header)) return [];
  return stack
    .slice(header.length)
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at '))
    .slice(0, MAX_FRAMES)
    .map((line) => cut(line, MAX_FRAME_CHARS));
}
