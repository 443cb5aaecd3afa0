import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import { contentText } from '../shared/content-text.js';
import { ToolCallDeltas } from '../shared/tool-call-deltas.js';
import type { UsageMeta } from '../shared/usage-body.js';
import {
  functionCallPart,
  type GeminiAnswerMeta,
  geminiUsageMetadata,
  nativeParts,
  shownPart,
  signedThoughtParts,
  toFinishReason,
} from './chat-to-gemini.js';

/** A streamed tool call being assembled. */
interface PendingCall {
  id: string;
  name: string;
  arguments: string;
  extra: unknown;
}

/** Per-candidate state of one stream. */
interface CandidateState {
  calls: ToolCallDeltas<PendingCall>;
  order: PendingCall[];
  finish: unknown;
}

/** One event of a Gemini stream on the wire (`alt=sse`): a `GenerateContentResponse` chunk, no event name. */
export const geminiFrame = (chunk: JsonObject): string => `data: ${JSON.stringify(chunk)}\n\n`;

/**
 * Turns a streamed chat completion (canonical chunks) into Gemini `streamGenerateContent?alt=sse` chunks:
 * each text or thought delta a chunk of its own as it arrives; function calls, which Gemini sends whole,
 * are assembled from their fragments (by the shared `ToolCallDeltas`) and sent with each candidate's
 * `finishReason` in the last chunk, which also carries `usageMetadata` with cost. Claude's signed thinking
 * becomes a thought part with its `thoughtSignature`; a Gemini provider's parts that chat has no field for
 * (`executableCode` …) come as it sent them (`extra_content.google.parts`). One instance per stream.
 * Reference: https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 */
export class GeminiChunkWriter {
  private readonly candidates = new Map<number, CandidateState>();

  constructor(private readonly meta: GeminiAnswerMeta) {}

  /** The frame for one chat chunk ('' when it carries nothing to send yet). */
  chunk(chunk: JsonObject): string {
    const candidates: JsonObject[] = [];
    for (const choice of arrayMember(chunk, 'choices') ?? []) {
      if (!isRecord(choice)) continue;
      const index = typeof choice.index === 'number' ? choice.index : 0;
      const state = this.state(index);
      const parts = this.parts(recordMember(choice, 'delta'), state);
      if (typeof choice.finish_reason === 'string') state.finish = choice.finish_reason;
      if (parts.length > 0) candidates.push({ content: { role: 'model', parts }, index });
    }
    return candidates.length === 0 ? '' : geminiFrame(this.envelope({ candidates }));
  }

  /** The last chunk: every candidate's function calls and finish reason, and the usage with cost. */
  end(usage: UsageMeta): string {
    if (this.candidates.size === 0) this.state(0);
    const candidates = [...this.candidates.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, state]) => ({
        content: { role: 'model', parts: state.order.map(callPart) },
        finishReason: toFinishReason(state.finish),
        index,
      }));
    return geminiFrame(this.envelope({ candidates, usageMetadata: geminiUsageMetadata(usage) }));
  }

  private parts(delta: JsonObject | undefined, state: CandidateState): JsonObject[] {
    const native = delta?.extra_content === undefined ? undefined : nativeParts(delta);
    const parts: JsonObject[] = native ? relayed(native, this.meta.includeThoughts) : this.chatParts(delta);
    for (const toolCall of arrayMember(delta, 'tool_calls') ?? []) {
      const fresh = (): PendingCall => ({ id: '', name: '', arguments: '', extra: undefined });
      const { call, created, delta: fragment } = state.calls.add(toolCall, fresh);
      if (created) state.order.push(call);
      if (call.id === '' && fragment.id) call.id = fragment.id;
      if (call.name === '' && fragment.name) call.name = fragment.name;
      call.arguments += fragment.argumentsFragment ?? '';
      const extra = recordMember(toolCall, 'extra_content');
      if (extra) call.extra = extra;
    }
    return parts;
  }

  /** The thoughts, text and refusal of a delta as parts. */
  private chatParts(delta: JsonObject | undefined): JsonObject[] {
    const parts: JsonObject[] = [];
    const reasoning = stringMember(delta, 'reasoning_content') ?? stringMember(delta, 'reasoning');
    if (reasoning && this.meta.includeThoughts) parts.push({ text: reasoning, thought: true });
    // With thoughts streamed, the signature ends them; else the signed block goes whole.
    parts.push(...signedThoughtParts(delta?.thinking_blocks, !this.meta.includeThoughts));
    const content = contentText(delta?.content);
    if (content) parts.push({ text: content });
    const refusal = stringMember(delta, 'refusal');
    if (refusal) parts.push({ text: refusal });
    return parts;
  }

  private state(index: number): CandidateState {
    let state = this.candidates.get(index);
    if (!state) {
      state = { calls: new ToolCallDeltas<PendingCall>(), order: [], finish: undefined };
      this.candidates.set(index, state);
    }
    return state;
  }

  private envelope(members: JsonObject): JsonObject {
    return withMembers(members, { modelVersion: this.meta.model, responseId: this.meta.id });
  }
}

/**
 * A Gemini provider's parts of one chunk as they came, in order (see `nativeParts`), but its function calls:
 * those are sent with the last chunk, from the tool calls, with their ids, as every call is.
 */
function relayed(native: unknown[], includeThoughts: boolean): JsonObject[] {
  const parts: JsonObject[] = [];
  for (const part of native) {
    const shown =
      isRecord(part) && part.functionCall === undefined ? shownPart(part, includeThoughts) : undefined;
    if (shown) parts.push(shown);
  }
  return parts;
}

function callPart(call: PendingCall): JsonObject {
  const chatCall: JsonObject = { function: { name: call.name } };
  if (call.id !== '') chatCall.id = call.id;
  if (call.extra !== undefined) chatCall.extra_content = call.extra;
  return functionCallPart(chatCall, call.arguments);
}
