import type { Turn } from './conversation-view.js';

const isModelTurn = (turn: Turn): boolean => turn.role === 'assistant' || turn.role === 'reasoning';

/**
 * Turns that must be kept or dropped together: a tool call and every result of it (an assistant message
 * with parallel `tool_calls` and all its `tool` messages; Responses `function_call` items and their
 * `function_call_output` items, linked by `call_id`), transitively; consecutive model turns (a Responses
 * reasoning item, assistant message and parallel `function_call` items of one response, like a chat
 * assistant message with several `tool_calls`); and a reasoning item with whatever follows it (the API
 * rejects one without the other). Returns, for each turn, the position of its group's representative;
 * turns of one group share it.
 */
export function groupTurns(turns: readonly Turn[]): number[] {
  const parent = turns.map((_, position) => position);
  const find = (position: number): number => {
    let root = position;
    while ((parent[root] ?? root) !== root) root = parent[root] ?? root;
    parent[position] = root;
    return root;
  };
  const union = (a: number, b: number): void => {
    parent[find(b)] = find(a);
  };
  const owners = new Map<string, number>();
  turns.forEach((turn, position) => {
    for (const id of [...turn.callIds, ...turn.resultIds]) {
      const owner = owners.get(id);
      if (owner === undefined) owners.set(id, position);
      else union(owner, position);
    }
    const next = turns[position + 1];
    if (next && (turn.role === 'reasoning' || (isModelTurn(turn) && isModelTurn(next)))) {
      union(position, position + 1);
    }
  });
  return turns.map((_, position) => find(position));
}
