/**
 * The arguments of a function call that got no argument text. OpenAI always sends a JSON string (`"{}"` for
 * a tool without parameters) and clients parse it (the `openai` SDK's strict tools and `responses.parse`
 * throw on `""`; its chat helpers hand `""` to code that parses it), where OpenAI-compatible chat servers
 * often send `""`. The Anthropic and Gemini adapters give such a call `{}` too.
 */
export const NO_ARGUMENTS = '{}';

/** True when a call's argument text is no JSON at all (empty or blank). */
export const isBlankArguments = (text: string): boolean => text.trim() === '';
