import { isRecord, recordMember, stringMember } from '../../json/json.js';

/** What one streamed chat `tool_calls[]` delta says. */
export interface ToolCallDelta {
  id: string | undefined;
  name: string | undefined;
  /** A fragment of the arguments' JSON text (an arguments object, as some servers send it: its JSON text). */
  argumentsFragment: string | undefined;
}

/**
 * Groups streamed chat tool-call deltas into calls: by `index` (the standard), else by `id`, else they belong
 * to the last call seen (providers that send continuation fragments bare). Shared by every translator of chat
 * streams, so that interleaved calls assemble the same way everywhere.
 */
export class ToolCallDeltas<Call> {
  private readonly calls = new Map<number | string, Call>();
  private lastKey: number | string | undefined;

  /** Number of distinct calls seen. */
  get size(): number {
    return this.calls.size;
  }

  /**
   * The call a delta belongs to, made with `create` the first time; `delta` is what the fragment says.
   * `created` tells the caller to open a new block or item for it.
   */
  add(toolCall: unknown, create: () => Call): { call: Call; created: boolean; delta: ToolCallDelta } {
    const fn = recordMember(toolCall, 'function');
    const delta: ToolCallDelta = {
      id: stringMember(toolCall, 'id'),
      name: stringMember(fn, 'name'),
      argumentsFragment: isRecord(fn?.arguments)
        ? JSON.stringify(fn.arguments)
        : stringMember(fn, 'arguments'),
    };
    const index = isRecord(toolCall) ? toolCall.index : undefined;
    const key = typeof index === 'number' ? index : delta.id !== undefined ? `id:${delta.id}` : this.lastKey;
    const known = key === undefined ? undefined : this.calls.get(key);
    const call = known ?? create();
    if (!known) this.calls.set(key ?? this.calls.size, call);
    this.lastKey = key ?? this.calls.size - 1;
    return { call, created: !known, delta };
  }
}
