/**
 * A provider's streamed answer as the pipeline reads it: parts pulled one at a time by one reader. Every
 * adapter's SSE parts are `PulledParts` (shared/sse-parts.ts), and so are cache replays; an ingress codec that
 * translates through a `TransformStream` reads them as a web stream (`asWebStream`) and hands on the translated
 * web stream, which is a `PartStream` as it is. On Node 20 a web stream costs about 14 µs to construct and a promise and a queue hop per
 * part; `PulledParts` costs neither, and hands out the parts of a network read without a promise each (`take`).
 */

/** One read: a part, or the end (a web stream's read result is one). */
export type PartRead<Part> = { done: false; value: Part } | { done: true; value?: Part };

export interface PartStream<Part> {
  getReader(): PartReader<Part>;
}

export interface PartReader<Part> {
  /** The next part, waiting for it if needed; `done` at the end; rejects when the stream failed. */
  read(): Promise<PartRead<Part>>;
  /** Stops the stream (the upstream request is closed). */
  cancel(reason?: unknown): Promise<void>;
  /** A part that is already there, without waiting; undefined when `read` must wait. */
  take?(): PartRead<Part> | undefined;
}

/** Where `PulledParts` gets its parts. */
export interface PartSource<Part> {
  /**
   * Reads on until at least one part was pushed or the stream ended: resolves true while more may come,
   * false at the end. Parts pushed before a rejection are still handed out, then the error.
   */
  pull(push: (part: Part) => void): Promise<boolean>;
  /**
   * `pull` from what already arrived only: true once a part was pushed, false at the end, undefined (nothing
   * pushed) when it would have to wait; throws where `pull` rejects. Optional.
   */
  pullNow?(push: (part: Part) => void): boolean | undefined;
  /**
   * Resolves once `pullNow` may push more, or has the end or a failure to report; never rejects. Optional,
   * with `pullNow`: a reader then waits on it instead of `pull`.
   */
  ready?(): Promise<void>;
  /** Stops reading and releases the upstream. */
  cancel(): Promise<void>;
}

const DONE: PartRead<never> = Object.freeze({ done: true, value: undefined });

/**
 * Parts pulled from a `PartSource` only when the reader has taken every part already there (backpressure:
 * nothing is read ahead of the reader). `take` pulls too when the source can without waiting (`pullNow`), so
 * that network reads already in cost no promise.
 */
export class PulledParts<Part> implements PartStream<Part>, PartReader<Part> {
  #parts: Part[] = [];
  #at = 0;
  #ended = false;
  #failure: { error: unknown } | undefined;
  readonly #push = (part: Part) => {
    this.#parts.push(part);
  };

  constructor(private readonly source: PartSource<Part>) {}

  /** One reader: the stream itself. */
  getReader(): PartReader<Part> {
    return this;
  }

  take(): PartRead<Part> | undefined {
    if (this.#at >= this.#parts.length && !this.#ended && this.source.pullNow !== undefined) {
      this.#parts = [];
      this.#at = 0;
      try {
        if (this.source.pullNow(this.#push) === false) this.#ended = true;
      } catch (error) {
        this.#ended = true;
        this.#failure = { error };
      }
    }
    // Parts pushed before a failure are handed out first, as `read` does.
    if (this.#at < this.#parts.length) return { done: false, value: this.#parts[this.#at++] as Part };
    return this.#ended && this.#failure === undefined ? DONE : undefined;
  }

  async read(): Promise<PartRead<Part>> {
    for (;;) {
      // The parts already pushed; what already arrived is read by `pull` (not by `take`, which a reader that
      // calls `read` has just tried).
      if (this.#at < this.#parts.length) return { done: false, value: this.#parts[this.#at++] as Part };
      if (this.#failure) throw this.#failure.error;
      if (this.#ended) return DONE;
      this.#parts = [];
      this.#at = 0;
      const { source } = this;
      try {
        if (source.ready && source.pullNow) {
          // One promise per wait: what arrived is read without one.
          const now = source.pullNow(this.#push);
          if (now === false) this.#ended = true;
          else if (now === undefined) await source.ready();
        } else if (!(await source.pull(this.#push))) this.#ended = true;
      } catch (error) {
        this.#ended = true;
        this.#failure = { error };
      }
    }
  }

  /** Stops the stream; a failed one is cancelled too, so that its upstream request is closed. */
  async cancel(): Promise<void> {
    if (this.#ended && this.#failure === undefined && this.#at >= this.#parts.length) return;
    this.#ended = true;
    this.#parts = [];
    this.#at = 0;
    await this.source.cancel();
  }
}

/** The listed parts as a stream (answers replayed from the response cache). */
export function listedParts<Part>(parts: readonly Part[]): PulledParts<Part> {
  let given = false;
  const pullNow = (push: (part: Part) => void): boolean => {
    if (!given) for (const part of parts) push(part);
    given = true;
    return false;
  };
  return new PulledParts<Part>({
    pullNow,
    pull: async (push) => pullNow(push),
    cancel: async () => undefined,
  });
}

/** `parts` as a web stream, for the translating codecs that pipe it through a `TransformStream`. */
export function asWebStream<Part>(parts: PartStream<Part>): ReadableStream<Part> {
  const reader = parts.getReader();
  return new ReadableStream<Part>(
    {
      async pull(controller) {
        const next = reader.take?.() ?? (await reader.read());
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
