/**
 * The canonical request shapes that the preparation steps (redaction, optimizations, skills, planning)
 * understand: chat completions and Responses. The Messages ingress is translated to chat first.
 */
export type RequestKind = 'chat' | 'responses';
