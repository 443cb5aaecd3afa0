/**
 * A protocol buffers writer into one growing buffer, for the OTLP encoding of spans (otlp-span.ts): tags,
 * varints, fixed-width numbers, UTF-8 strings, hex ids as bytes, and length-delimited messages written in
 * place (one byte reserved for the length, the content moved on in the rare case it is 128 bytes or more).
 * Wire format: https://protobuf.dev/programming-guides/encoding/
 */
export class ProtoWriter {
  buffer: Buffer;
  pos = 0;

  constructor(initialBytes = 4096) {
    this.buffer = Buffer.allocUnsafe(initialBytes);
  }

  /** The bytes written so far (a view, valid until the next write). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.pos);
  }

  tag(field: number, wireType: 0 | 1 | 2 | 5): void {
    this.varint(field * 8 + wireType);
  }

  /** A non-negative integer up to 2^53, or a negative one as the 10-byte two's complement of int64. */
  varint(value: number): void {
    this.room(10);
    if (value >= 0 && value <= 0xffffffff) {
      let v = value >>> 0;
      while (v > 0x7f) {
        this.buffer[this.pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      this.buffer[this.pos++] = v;
      return;
    }
    let v = BigInt.asUintN(64, BigInt(value));
    while (v > 0x7fn) {
      this.buffer[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buffer[this.pos++] = Number(v);
  }

  fixed32(value: number): void {
    this.room(4);
    this.buffer.writeUInt32LE(value >>> 0, this.pos);
    this.pos += 4;
  }

  fixed64(low: number, high: number): void {
    this.room(8);
    this.buffer.writeUInt32LE(low >>> 0, this.pos);
    this.buffer.writeUInt32LE(high >>> 0, this.pos + 4);
    this.pos += 8;
  }

  double(value: number): void {
    this.room(8);
    this.buffer.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  /** A length-delimited UTF-8 string (the field's tag written before). */
  string(text: string): void {
    this.room(text.length * 3 + 5);
    const at = this.start();
    this.pos += this.buffer.write(text, this.pos, 'utf8');
    this.finish(at);
  }

  /** Length-delimited bytes given as hex (trace and span ids). */
  hex(hex: string): void {
    this.room(hex.length / 2 + 5);
    const at = this.start();
    this.pos += this.buffer.write(hex, this.pos, 'hex');
    this.finish(at);
  }

  /** Opens a length-delimited message: returns where its length goes (pass it to `finish`). */
  start(): number {
    this.room(1);
    return this.pos++;
  }

  /** Closes the message opened at `at`: writes its length there, moving the content on when it needs more bytes. */
  finish(at: number): void {
    const length = this.pos - at - 1;
    if (length < 0x80) {
      this.buffer[at] = length;
      return;
    }
    const size = varintSize(length);
    this.room(size - 1);
    this.buffer.copyWithin(at + size, at + 1, this.pos);
    this.pos += size - 1;
    let v = length;
    let p = at;
    while (v > 0x7f) {
      this.buffer[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buffer[p] = v;
  }

  private room(bytes: number): void {
    if (this.pos + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.pos + bytes));
    this.buffer.copy(grown, 0, 0, this.pos);
    this.buffer = grown;
  }
}

/** Bytes of the varint of a non-negative 32-bit length. */
export function varintSize(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  return 5;
}
