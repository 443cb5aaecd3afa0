/**
 * JSON text that arrives in fragments (a tool call's streamed arguments), passed on as it comes only as far as
 * it is the start of one JSON object, and completed at the end: what `push` gave, followed by what `end`
 * gives, is always one JSON object, whatever came. Text after the object, an object that never began (an
 * array, a string, nothing) or one that was cut off cannot be taken back once passed on, so the stream stops
 * passing on at the first character that could not continue an object, holds a comma until the next member
 * or element shows it is one, and `end` closes what is open: a cut string, a key still without its value
 * (`null`), a half-written number or literal, then every open array and object. Anthropic's SDK parses a
 * `tool_use` block's `input_json_delta`s as they come and fails the whole message on text that is not JSON.
 */

type Mode =
  | 'start'
  | 'key-or-close'
  | 'key'
  | 'colon'
  | 'value'
  | 'value-or-close'
  | 'after-value'
  | 'string'
  | 'number'
  | 'literal'
  | 'done';

/** The number grammar's states; the starred ones may end a number. */
type NumberState = 'sign' | 'zero*' | 'int*' | 'point' | 'frac*' | 'exp' | 'exp-sign' | 'exp-int*';

const isSpace = (char: string): boolean => char === ' ' || char === '\n' || char === '\r' || char === '\t';
const isDigit = (char: string): boolean => char >= '0' && char <= '9';
const isHex = (char: string): boolean => /^[0-9a-fA-F]$/.test(char);
const LITERALS: Readonly<Record<string, string>> = { t: 'rue', f: 'alse', n: 'ull' };
const ESCAPES = '"\\/bfnrt';

export class JsonObjectStream {
  #mode: Mode = 'start';
  /** Open objects and arrays, outermost first. */
  readonly #stack: ('}' | ']')[] = [];
  /** The string being read is a member name. */
  #inKey = false;
  /** After a backslash in a string; `#hex` counts the digits a `\u` escape still needs. */
  #escape = false;
  #hex = 0;
  #number: NumberState = 'int*';
  /** What the literal being read (`true`, `false`, `null`) still needs. */
  #literal = '';
  /** A comma and the whitespace after it, passed on with the next member or element. */
  #held = '';
  /** A character came that no object could go on with: everything after it is dropped. */
  #broken = false;

  /** The part of `fragment` that can be passed on now ('' for none). */
  push(fragment: string): string {
    let out = '';
    for (const char of fragment) {
      if (this.#broken) break;
      const taken = this.#take(char);
      if (taken === undefined) {
        this.#broken = true;
        // A held comma is dropped: what was passed on ends with the value before it.
        if (this.#held !== '') this.#mode = 'after-value';
        this.#held = '';
      } else out += taken;
    }
    return out;
  }

  /** What closes the text passed on into one JSON object (`{}` when no object began). */
  end(): string {
    if (this.#mode === 'start') return '{}';
    if (this.#held !== '') return this.#closers();
    switch (this.#mode) {
      case 'string': {
        // A cut escape is finished (`\"`, `\u00` + `00`) before the string is closed.
        const cut = this.#escape ? (this.#hex > 0 ? '0'.repeat(this.#hex) : '"') : '';
        return `${cut}"${this.#inKey ? ':null' : ''}${this.#closers()}`;
      }
      case 'colon':
        return `:null${this.#closers()}`;
      case 'value':
        return `null${this.#closers()}`;
      case 'number':
        return `${this.#number.endsWith('*') ? '' : '0'}${this.#closers()}`;
      case 'literal':
        return this.#literal + this.#closers();
      default:
        return this.#closers();
    }
  }

  #closers(): string {
    return [...this.#stack].reverse().join('');
  }

  /** Reads one character: the text to pass on for it ('' while held), or undefined when it breaks the object. */
  #take(char: string): string | undefined {
    switch (this.#mode) {
      case 'start':
        if (isSpace(char)) return '';
        if (char !== '{') return undefined;
        this.#stack.push('}');
        this.#mode = 'key-or-close';
        return char;
      case 'string':
        return this.#stringChar(char);
      case 'number':
        return this.#numberChar(char);
      case 'literal':
        if (char !== this.#literal[0]) return undefined;
        this.#literal = this.#literal.slice(1);
        if (this.#literal === '') this.#mode = 'after-value';
        return char;
      case 'done':
        return isSpace(char) ? '' : undefined;
      default:
        return this.#structural(char);
    }
  }

  /** A character between tokens: whitespace, a token's start, or punctuation. */
  #structural(char: string): string | undefined {
    if (isSpace(char)) {
      if (this.#held === '') return char;
      this.#held += char;
      return '';
    }
    const mode = this.#mode;
    const released = this.#held;
    let taken: boolean;
    if (mode === 'key-or-close' || mode === 'key') {
      taken = (char === '}' && mode === 'key-or-close' && this.#close('}')) || this.#openString(char, true);
    } else if (mode === 'colon') {
      taken = char === ':';
      if (taken) this.#mode = 'value';
    } else if (mode === 'value' || mode === 'value-or-close') {
      taken = (char === ']' && mode === 'value-or-close' && this.#close(']')) || this.#openValue(char);
    } else {
      taken = this.#afterValue(char);
      if (taken && char === ',') {
        this.#held = char;
        return '';
      }
    }
    if (!taken) return undefined;
    this.#held = '';
    return released + char;
  }

  #afterValue(char: string): boolean {
    if (char === ',') {
      this.#mode = this.#stack.at(-1) === '}' ? 'key' : 'value';
      return true;
    }
    return (char === '}' || char === ']') && this.#close(char);
  }

  #close(char: '}' | ']'): boolean {
    if (this.#stack.at(-1) !== char) return false;
    this.#stack.pop();
    this.#mode = this.#stack.length === 0 ? 'done' : 'after-value';
    return true;
  }

  #openString(char: string, key: boolean): boolean {
    if (char !== '"') return false;
    this.#mode = 'string';
    this.#inKey = key;
    return true;
  }

  #openValue(char: string): boolean {
    if (this.#openString(char, false)) return true;
    if (char === '{' || char === '[') {
      this.#stack.push(char === '{' ? '}' : ']');
      this.#mode = char === '{' ? 'key-or-close' : 'value-or-close';
      return true;
    }
    if (char === '-' || isDigit(char)) {
      this.#mode = 'number';
      this.#number = char === '-' ? 'sign' : char === '0' ? 'zero*' : 'int*';
      return true;
    }
    const literal = LITERALS[char];
    if (literal === undefined) return false;
    this.#mode = 'literal';
    this.#literal = literal;
    return true;
  }

  #stringChar(char: string): string | undefined {
    if (this.#hex > 0) {
      if (!isHex(char)) return undefined;
      this.#hex--;
      if (this.#hex === 0) this.#escape = false;
      return char;
    }
    if (this.#escape) {
      if (char === 'u') this.#hex = 4;
      else if (ESCAPES.includes(char)) this.#escape = false;
      else return undefined;
      return char;
    }
    if (char === '\\') this.#escape = true;
    else if (char === '"') this.#mode = this.#inKey ? 'colon' : 'after-value';
    else if (char < ' ') return undefined;
    return char;
  }

  #numberChar(char: string): string | undefined {
    const state = this.#number;
    let next: NumberState | undefined;
    if (isDigit(char)) {
      if (state === 'sign') next = char === '0' ? 'zero*' : 'int*';
      else if (state === 'int*' || state === 'frac*' || state === 'exp-int*') next = state;
      else if (state === 'point') next = 'frac*';
      else if (state === 'exp' || state === 'exp-sign') next = 'exp-int*';
    } else if (char === '.' && (state === 'zero*' || state === 'int*')) next = 'point';
    else if ((char === 'e' || char === 'E') && (state === 'zero*' || state === 'int*' || state === 'frac*'))
      next = 'exp';
    else if ((char === '+' || char === '-') && state === 'exp') next = 'exp-sign';
    if (next !== undefined) {
      this.#number = next;
      return char;
    }
    // Anything else ends the number, if it may end here, and is read as what follows a value.
    if (!state.endsWith('*')) return undefined;
    this.#mode = 'after-value';
    return this.#structural(char);
  }
}
